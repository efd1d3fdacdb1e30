/**
 * The bwrap command line for one of Colony's own git commands on an agent's repository: the same
 * containment as the agent's commands (every namespace unshared, no capabilities, the read-only
 * system, an environment given whole), with that repository and nothing else of the host — its
 * checkout and its git directory read-write, the hub's object store it borrows read-only (read-write
 * only when Colony writes the new objects straight into it). So a link the agent planted in its
 * checkout or its git directory, a nested repository's config, anything git might follow or run there,
 * reaches only what the agent can reach already, never the host. Network only when asked (a worker's
 * push to the run's gateway); the caller's git environment is passed as it is (HOME inside).
 */
import type { AgentRepoPlace } from '../core/agent-layout.js';
import type { ContainedCommand } from './argv.js';
import { SANDBOX_HOME } from './env.js';
import { systemMounts } from './mounts.js';
import type { Sandbox } from './sandbox.js';

export interface RepoCommandOptions {
  /** The folder the command runs in (the checkout or the git directory). */
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** New objects go straight into the hub's object store. */
  hubWritable?: boolean;
  network?: boolean;
}

export function containRepoCommand(
  sandbox: Sandbox,
  place: AgentRepoPlace,
  command: readonly string[],
  options: RepoCommandOptions,
): ContainedCommand {
  const env = { ...options.env, HOME: SANDBOX_HOME };
  const args = [
    '--unshare-all',
    ...(options.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    ...systemMounts(),
    '--bind',
    place.checkout,
    place.checkout,
    '--bind',
    place.gitDir,
    place.gitDir,
    options.hubWritable ? '--bind' : '--ro-bind',
    place.hubObjects,
    place.hubObjects,
    '--remount-ro',
    '/',
    '--chdir',
    options.cwd,
    '--clearenv',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
    ...command,
  ];
  return { file: sandbox.bwrap, args, env };
}
