/**
 * The one way Colony starts a command an agent can influence — bash, setup, verify, merge and
 * acceptance checks, an external agent CLI: contained in the run's sandbox when there is one, else
 * uncontained with the environment its caller allows; always in a process group of its own, so
 * everything it starts is killed at once (a sandbox dies with bwrap, which leads its group).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type ContainOptions, containCommand } from './argv.js';
import type { Sandbox } from './sandbox.js';

export interface CommandToStart {
  argv: readonly string[];
  /** Where it runs (in a sandbox: the checkout mounted there). */
  cwd: string;
  /** The sandbox's environment and extra mounts. */
  contain: Omit<ContainOptions, 'cwd'>;
  /** Its whole environment when there is no sandbox (the caller's allow-list). */
  uncontainedEnv: NodeJS.ProcessEnv;
}

export function startCommand(
  sandbox: Sandbox | null,
  command: CommandToStart,
): ChildProcessWithoutNullStreams {
  const { argv, cwd } = command;
  const planned = sandbox
    ? containCommand(sandbox, argv, { cwd, ...command.contain })
    : { file: argv[0] ?? 'false', args: argv.slice(1), env: command.uncontainedEnv };
  return spawn(planned.file, planned.args, {
    cwd,
    env: planned.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Signals a command's whole process group (a group already gone is not an error). */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is already gone
  }
}
