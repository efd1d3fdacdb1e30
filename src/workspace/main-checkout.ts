/**
 * Checks on hub main (final verify, acceptance, workflow sync points) run in a fresh detached
 * checkout beside the agents' worktrees: whatever an earlier check left there is removed first, and
 * the run's setup command runs before the check (with the network only while hub main is still the
 * base commit: after a landing the tree holds agents' changes).
 */
import type { Sandbox } from '../sandbox/index.js';
import { git } from './git/git.js';
import { type CommandResult, runSetup } from './shell-command.js';

export type CheckoutForCheck =
  | { kind: 'ready' }
  | { kind: 'setup_failed'; setup: CommandResult }
  | { kind: 'error'; error: string };

/** A fresh detached checkout of `commit` (a commit or a hub ref) at `checkout`, with `setup` run in it. */
export async function checkoutForCheck(options: {
  hubPath: string;
  checkout: string;
  commit: string;
  /** The commit the run started from: setup has the network on its tree only. */
  baseCommit: string;
  setup?: string;
  env: NodeJS.ProcessEnv;
  /** The run's sandbox (setup runs in it, see runSetup); null: uncontained. */
  sandbox?: Sandbox | null;
}): Promise<CheckoutForCheck> {
  const { hubPath, checkout } = options;
  const resolved = await git(['rev-parse', '--verify', '--end-of-options', `${options.commit}^{commit}`], {
    cwd: hubPath,
  });
  if (!resolved.ok) return { kind: 'error', error: `could not read ${options.commit}: ${resolved.stderr}` };
  const commit = resolved.stdout.trim();
  await git(['worktree', 'remove', '--force', '--force', checkout], { cwd: hubPath });
  await git(['worktree', 'prune'], { cwd: hubPath });
  const added = await git(['worktree', 'add', '--quiet', '--detach', checkout, commit], { cwd: hubPath });
  if (!added.ok) return { kind: 'error', error: `could not check out hub main: ${added.stderr}` };
  if (!options.setup) return { kind: 'ready' };
  const setup = await runSetup(options.setup, checkout, {
    env: options.env,
    sandbox: options.sandbox,
    onBaseTree: commit === options.baseCommit,
  });
  return setup.exitCode === 0 ? { kind: 'ready' } : { kind: 'setup_failed', setup };
}
