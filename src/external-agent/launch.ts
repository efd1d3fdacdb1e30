/**
 * Starting one external CLI process: in the agent's checkout, in the run's sandbox when there is one
 * (its HOME is the agent's own config folder, the Colony install is there read-only, and without the
 * host's network the host server is reached through the forwarder), else directly with an
 * allow-listed environment. The process gets a process group of its own, killed on abort.
 */
import type { ChildProcess } from 'node:child_process';
import { packageRoot } from '../core/package-root.js';
import {
  SANDBOX_HOME,
  type Sandbox,
  sandboxEnv,
  killGroup as signalGroup,
  startCommand,
} from '../sandbox/index.js';
import type { CliLaunch } from './adapter.js';
import { forwardedCommand, SANDBOX_SOCKET } from './forwarder.js';

export interface LaunchPlace {
  worktree: string;
  /** The agent's config folder on the host (its HOME). */
  agentHome: string;
  sandbox: Sandbox | null;
  /** PATH, LANG, TERM and the user's passed variables come from here. */
  baseEnv: NodeJS.ProcessEnv;
  /** The host server's port and unix socket. */
  port: number;
  socket: string;
}

/** HOME as the CLI sees it. */
export function homeSeen(place: Pick<LaunchPlace, 'sandbox' | 'agentHome'>): string {
  return place.sandbox ? SANDBOX_HOME : place.agentHome;
}

export function startCli(launch: CliLaunch, place: LaunchPlace): ChildProcess {
  const { sandbox } = place;
  const root = packageRoot();
  const argv =
    sandbox && !sandbox.network ? forwardedCommand(process.execPath, place.port, launch.argv) : launch.argv;
  return startCommand(sandbox, {
    argv,
    cwd: place.worktree,
    contain: {
      baseEnv: place.baseEnv,
      extraEnv: launch.env,
      binds: [
        { source: place.agentHome, dest: SANDBOX_HOME, writable: true },
        { source: root, dest: root },
        ...(sandbox?.network === false
          ? [{ source: place.socket, dest: SANDBOX_SOCKET, writable: true }]
          : []),
      ],
    },
    uncontainedEnv: { ...sandboxEnv(place.baseEnv, {}, launch.env), HOME: place.agentHome },
  });
}

/** Ends the process group (the CLI and whatever it started). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  if (!signalGroup(child.pid, signal)) child.kill(signal);
}
