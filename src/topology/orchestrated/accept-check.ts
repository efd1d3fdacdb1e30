/**
 * The acceptance check: the run's verify command and the accept command, run one after another on
 * hub main in a clean detached checkout (setup first), like team/verify-main.ts. Each command's
 * result is logged as `verify.finished` by the `acceptance` pseudo-agent (agent-level, so it never
 * stands in for the run's own final verify).
 */
import { join } from 'node:path';
import type { EventKind, EventPayloads } from '../../core/events.js';
import type { Sandbox } from '../../sandbox/index.js';
import { hubMainCommit } from '../../workspace/hub/main.js';
import { checkoutForCheck } from '../../workspace/main-checkout.js';
import { runShellCommand } from '../../workspace/shell-command.js';

export const ACCEPTANCE_AGENT = 'acceptance';
/** Folder beside the agents' worktrees, so RunWorkspace.finish() removes it. */
const ACCEPT_CHECKOUT = '.accept-main';

export interface CheckResult {
  command: string;
  exitCode: number | null;
  passed: boolean;
  output: string;
}

export interface AcceptCheckOptions {
  runDir: string;
  hubPath: string;
  /** Commands in order (verify, then accept); all run even when one fails. */
  commands: string[];
  /** The commit the run started from (setup has the network on its tree only). */
  baseCommit: string;
  setup?: string;
  env: NodeJS.ProcessEnv;
  sandbox?: Sandbox | null;
  emit: <K extends EventKind>(kind: K, data: EventPayloads[K]) => Promise<unknown>;
}

/** Checks hub main as it is now; `checks` are the failing and passing commands in order. */
export async function checkMain(
  o: AcceptCheckOptions,
): Promise<{ ok: true; commit: string; checks: CheckResult[] } | { ok: false; error: string }> {
  const head = await hubMainCommit(o.hubPath);
  if (!head.ok) return head;
  const commit = head.value;
  const checkout = join(o.runDir, 'worktrees', ACCEPT_CHECKOUT);
  const prepared = await checkoutForCheck({
    hubPath: o.hubPath,
    checkout,
    commit,
    baseCommit: o.baseCommit,
    setup: o.setup,
    env: o.env,
    sandbox: o.sandbox,
  });
  if (prepared.kind === 'error') return { ok: false, error: prepared.error };
  const checks: CheckResult[] = [];
  if (prepared.kind === 'setup_failed') {
    const { setup } = prepared;
    const output = `setup failed before the acceptance check:\n${setup.output}`;
    for (const command of o.commands) {
      checks.push({ command, exitCode: setup.exitCode, passed: false, output });
      await o.emit('verify.finished', {
        command,
        exitCode: setup.exitCode,
        passed: false,
        output,
        durationMs: setup.durationMs,
        commit,
      });
    }
    return { ok: true, commit, checks };
  }
  for (const command of o.commands) {
    const result = await runShellCommand(command, checkout, { env: o.env, sandbox: o.sandbox });
    const passed = result.exitCode === 0;
    checks.push({ command, exitCode: result.exitCode, passed, output: result.output });
    await o.emit('verify.finished', {
      command,
      exitCode: result.exitCode,
      passed,
      output: result.output,
      durationMs: result.durationMs,
      commit,
    });
  }
  return { ok: true, commit, checks };
}
