/**
 * The guard of every git command Colony itself runs on an agent's repository (commit, add, status,
 * diff, sync's merge and rebase, publish's object copy, a fleet worker's snapshot, lazy fills): such a
 * command runs in a sandbox of its own that holds that repository and nothing else of the host
 * (sandbox/repo-command.ts), whenever the run contains its agents. A run registers its folder with its
 * sandbox when its workspace is made; git.ts asks here, by the folder a command runs in, whether it is
 * an agent's repository (core/agent-layout.ts: Colony's record, never the checkout's `.git` file) and
 * how to contain it. A run whose agents run uncontained (`--sandbox off`) runs these uncontained too:
 * its agents' commands have the host already (docs/sandbox.md).
 */
import path from 'node:path';
import { type AgentRepoPlace, agentRepoAt } from '../../core/agent-layout.js';
import { type ContainedCommand, containRepoCommand, type Sandbox } from '../../sandbox/index.js';

/** Run folder → the sandbox its agents' repositories are worked on in (null: uncontained). */
const containment = new Map<string, Sandbox | null>();

/** The run's agents' repositories are worked on in `sandbox` (null: uncontained) from now on. */
export function containAgentRepos(runDir: string, sandbox: Sandbox | null): void {
  containment.set(path.resolve(runDir), sandbox);
}

export interface AgentGitCall {
  place: AgentRepoPlace;
  /** The environment that pins git to the repository from Colony's record. */
  pinnedEnv: Record<string, string>;
  /** Wraps the command in the repository's sandbox; null when the run is uncontained. */
  contain: ((command: readonly string[], options: ContainOptions) => ContainedCommand) | null;
}

interface ContainOptions {
  cwd: string;
  env: Record<string, string>;
  network?: boolean;
}

/** How to run a git command in `cwd`, when `cwd` is an agent's checkout or git directory; else null. */
export function agentGitCall(cwd: string): AgentGitCall | null {
  const place = agentRepoAt(cwd);
  if (!place) return null;
  const sandbox = containment.get(place.runDir) ?? null;
  // GIT_COMMON_DIR: a `commondir` file the agent wrote must not redirect Colony (see git.ts).
  const pinnedEnv = { GIT_DIR: place.gitDir, GIT_COMMON_DIR: place.gitDir, GIT_WORK_TREE: place.checkout };
  return {
    place,
    pinnedEnv,
    contain: sandbox
      ? (command, options) =>
          containRepoCommand(sandbox, place, command, {
            cwd: options.cwd,
            env: options.env,
            hubWritable: options.env.GIT_OBJECT_DIRECTORY === place.hubObjects,
            ...(options.network ? { network: true } : {}),
          })
      : null,
  };
}
