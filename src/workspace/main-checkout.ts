/**
 * Checks on hub main (final verify, acceptance, workflow sync points) run in a fresh detached
 * checkout beside the agents' worktrees: whatever an earlier check left there is removed first, and
 * the run's setup command runs before the check.
 */
import { type Sandbox, setupSandbox } from '../sandbox/index.js';
import { git } from './git.js';
import { HUB_MAIN } from './hub.js';
import { type CommandResult, runShellCommand } from './shell-command.js';

export async function hubMainCommit(
  hubPath: string,
): Promise<{ ok: true; commit: string } | { ok: false; error: string }> {
  const head = await git(['rev-parse', `refs/heads/${HUB_MAIN}`], { cwd: hubPath });
  return head.ok
    ? { ok: true, commit: head.stdout.trim() }
    : { ok: false, error: `could not read hub main: ${head.stderr}` };
}

export type CheckoutForCheck =
  | { kind: 'ready' }
  | { kind: 'setup_failed'; setup: CommandResult }
  | { kind: 'error'; error: string };

/** A fresh detached checkout of `commit` at `checkout`, with `setup` run in it. */
export async function checkoutForCheck(options: {
  hubPath: string;
  checkout: string;
  commit: string;
  setup?: string;
  env: NodeJS.ProcessEnv;
  /** The run's sandbox (setup runs in it with network); null: uncontained. */
  sandbox?: Sandbox | null;
}): Promise<CheckoutForCheck> {
  const { hubPath, checkout } = options;
  await git(['worktree', 'remove', '--force', '--force', checkout], { cwd: hubPath });
  await git(['worktree', 'prune'], { cwd: hubPath });
  const added = await git(['worktree', 'add', '--quiet', '--detach', checkout, options.commit], {
    cwd: hubPath,
  });
  if (!added.ok) return { kind: 'error', error: `could not check out hub main: ${added.stderr}` };
  if (!options.setup) return { kind: 'ready' };
  const setup = await runShellCommand(options.setup, checkout, {
    env: options.env,
    sandbox: setupSandbox(options.sandbox),
  });
  return setup.exitCode === 0 ? { kind: 'ready' } : { kind: 'setup_failed', setup };
}
