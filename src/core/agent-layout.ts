/**
 * Where an agent's repository lives in a run folder: its checkout at `<run>/worktrees/<agent>` and its
 * git directory at `<run>/repos/<agent>.git`, beside the hub `<run>/hub.git`. This is Colony's own
 * record of the repository: the `.git` file in the checkout, which the agent can reach, is never read
 * to find it (a rewritten `.git` must not decide what the sandbox binds or where Colony's git looks).
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';

/** Folder (in the run folder) that holds the agents' git directories. */
export const AGENT_GIT_DIRS = 'repos';
/** Folder (in the run folder) that holds the checkouts (agents' and Colony's check checkouts). */
export const CHECKOUTS = 'worktrees';
/**
 * Folder (in the run folder) of Colony's private git directories, one per agent, that its commits in
 * the agent's repository are made from (workspace/agent-repo/private-commit.ts): no sandbox binds it.
 */
export const COMMIT_DIRS = 'commit-dirs';

export interface AgentRepoPlace {
  runDir: string;
  checkout: string;
  gitDir: string;
  /** The hub's object store, which the agent's repository borrows (an alternate). */
  hubObjects: string;
  /** Colony's private git directory for commits in this repository (never the agent's to write). */
  commitDir: string;
}

/** The paths of an agent's repository in `runDir` (whether it exists or not). */
export function agentRepoPlace(runDir: string, agent: string): AgentRepoPlace {
  return {
    runDir,
    checkout: path.join(runDir, CHECKOUTS, agent),
    gitDir: path.join(runDir, AGENT_GIT_DIRS, `${agent}.git`),
    hubObjects: path.join(runDir, 'hub.git', 'objects'),
    commitDir: path.join(runDir, COMMIT_DIRS, `${agent}.git`),
  };
}

/**
 * The agent repository that `folder` is the checkout or the git directory of, by the layout above,
 * when its git directory exists as a real folder (not a link); null for anything else (the user's
 * repository, the hub, Colony's check checkouts, which have no git directory in `repos/`).
 */
export function agentRepoAt(folder: string): AgentRepoPlace | null {
  const abs = path.resolve(folder);
  const parent = path.dirname(abs);
  const name = path.basename(abs);
  let place: AgentRepoPlace | null = null;
  if (path.basename(parent) === CHECKOUTS) place = agentRepoPlace(path.dirname(parent), name);
  else if (path.basename(parent) === AGENT_GIT_DIRS && name.endsWith('.git') && name.length > 4)
    place = agentRepoPlace(path.dirname(parent), name.slice(0, -4));
  if (!place) return null;
  try {
    return lstatSync(place.gitDir).isDirectory() ? place : null;
  } catch {
    return null;
  }
}
