/**
 * The one way Colony starts a command an agent can influence — bash, setup, verify, merge and
 * acceptance checks, an external agent CLI: contained in the run's sandbox when there is one, else
 * uncontained with the environment its caller allows; always in a process group of its own, so
 * everything it starts is killed at once (a sandbox dies with bwrap, which leads its group).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { launchStream, type StreamedCommand, type StreamHandlers } from '../core/launcher.js';
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

/** What runs: bwrap with the command inside, or the command itself with its allowed environment. */
function plan(sandbox: Sandbox | null, command: CommandToStart) {
  const { argv, cwd } = command;
  return sandbox
    ? containCommand(sandbox, argv, { cwd, ...command.contain })
    : { file: argv[0] ?? 'false', args: argv.slice(1), env: command.uncontainedEnv };
}

export function startCommand(
  sandbox: Sandbox | null,
  command: CommandToStart,
): ChildProcessWithoutNullStreams {
  const { cwd } = command;
  const planned = plan(sandbox, command);
  return spawn(planned.file, planned.args, {
    cwd,
    env: planned.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * The same command, started by a launcher process (core/launcher.ts) rather than by Colony's own:
 * the fork of a big process blocks its event loop (the bash tool at 300 peers: 31 s). In a process
 * group of its own, stdin open (the watchdog's pipe), output delivered as it comes.
 */
export function startStreamedCommand(
  sandbox: Sandbox | null,
  command: CommandToStart,
  handlers: StreamHandlers,
): StreamedCommand {
  const planned = plan(sandbox, command);
  // An agent's command: the launchers' background lane (core/launcher.ts).
  return launchStream(
    planned.file,
    planned.args,
    { cwd: command.cwd, env: planned.env, background: true },
    handlers,
  );
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
