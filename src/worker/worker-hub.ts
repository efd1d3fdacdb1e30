/**
 * A worker's mirror of a run's hub: a bare repository on the worker that its agents' repositories
 * borrow objects from (as they borrow from the hub on the owner), kept in step with the real hub over
 * git's smart HTTP with each agent's own token. The real hub shows an agent main and its own refs
 * only, and takes pushes of those only (workspace/hub-http/refs.ts), so the mirror holds main and the
 * branches of the agents this worker ran.
 *
 * Work in progress: while an agent works, its uncommitted files are snapshotted as a commit on top of
 * its branch (a private index; the checkout and the agent's index are untouched) and pushed to
 * refs/colony/wip/<agent>; a worker that takes the agent over restores them into the fresh checkout,
 * uncommitted, so the replayed log and the files agree up to the last snapshot.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { err, ok, type Result } from '../lang/result.js';
import { type AgentRepo, repoEnv } from '../workspace/agent-repo/agent-repo.js';
import { AGENT_IDENTITY, git, gitError, shInRepo } from '../workspace/git/git.js';
import { OBJECT_ID } from '../workspace/git/loose-ref.js';
import { removeStaleRefLocks } from '../workspace/git/stale-locks.js';
import { HUB_MAIN } from '../workspace/hub/hub.js';
import { agentBranchRef, agentWipRef } from '../workspace/hub-http/refs.js';
import type { HubUpstream } from '../workspace/run-workspace.js';
import { whileOwnerAway } from './owner-wait.js';

export interface WorkerHubOptions {
  /** The mirror's folder (a bare repository). */
  mirrorPath: string;
  /** The run's hub over HTTP, e.g. http://10.0.0.1:7070/git/<run>/hub.git (a resumed owner moves it). */
  hubUrl(): string;
  /** The current token of an agent (short-lived; re-issued by the worker as needed). */
  tokenFor(agent: string): string;
  /** A PEM CA bundle the https:// hub's certificate must chain to (`colony worker --ca`), absolute. */
  caFile?: string;
}

const HTTP_TIMEOUT_MS = 120_000;

/**
 * A snapshot of the checkout's files as a tree, with a private index (the agent's own index and
 * checkout stay as they are). Prints the tree, HEAD's commit and HEAD's tree, one a line.
 */
const SNAPSHOT_SCRIPT = `
export GIT_INDEX_FILE="$GIT_DIR/colony-wip-index"
git read-tree HEAD </dev/null || exit 3
git add --all </dev/null || exit 4
git write-tree </dev/null || exit 5
git rev-parse HEAD 'HEAD^{tree}' </dev/null || exit 6
`;

/** The snapshot's commit (\$1 tree, \$2 parent, \$3 message) pushed to \$4 as \$5 (forced). */
const PUSH_WIP_SCRIPT = `
commit=$(git commit-tree "$1" -p "$2" -m "$3" </dev/null) || exit 3
git push --quiet --force --no-verify "$4" "$commit:$5" </dev/null
`;

/**
 * The config of a git call to the hub: the agent's token, and the worker's CA when it has one (set
 * for this call in git's environment, above any config file; verification stays on).
 */
export function hubHttpConfig(token: string, caFile?: string): [string, string][] {
  return [
    ['http.extraHeader', `Authorization: Bearer ${token}`],
    ['http.sslVerify', 'true'],
    ...(caFile ? ([['http.sslCAInfo', caFile]] as [string, string][]) : []),
  ];
}

/** Creates the mirror (an empty bare repository) when it does not exist yet. */
export async function openMirror(mirrorPath: string): Promise<Result<void>> {
  if (existsSync(path.join(mirrorPath, 'HEAD'))) {
    // A mirror this worker (same name and folder) filled before it was killed mid-fetch: a ref lock
    // older than this process would refuse every later fetch of main or an agent's branch.
    await removeStaleRefLocks(mirrorPath);
    return ok(undefined);
  }
  await rm(mirrorPath, { recursive: true, force: true });
  await mkdir(path.dirname(mirrorPath), { recursive: true });
  const made = await git(['init', '--bare', '--quiet', '--initial-branch', HUB_MAIN, mirrorPath], {
    cwd: path.dirname(mirrorPath),
  });
  if (!made.ok) return err(`could not create the hub mirror ${mirrorPath}: ${gitError(made)}`);
  // Objects arrive by fetch only; no gc while agents' repositories borrow from it.
  const gc = await git(['config', 'gc.auto', '0'], { cwd: mirrorPath });
  return gc.ok ? ok(undefined) : err(gitError(gc));
}

export function workerHubUpstream(options: WorkerHubOptions): HubUpstream & {
  /** Pushes a snapshot of the agent's uncommitted files as its work in progress (no-op when clean). */
  pushWip(agent: string, repo: AgentRepo): Promise<Result<void>>;
} {
  const { mirrorPath } = options;
  const hubUrl = () => options.hubUrl();
  const pushedWip = new Map<string, string>();
  // Fetches that write refs in the mirror run one at a time (two at once would race for main's lock).
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => {});
    return next;
  };
  const fetchWith = async (agent: string, refspecs: string[]): Promise<Result<void>> => {
    const fetched = await whileOwnerAway(async () => {
      const r = await git(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', hubUrl(), ...refspecs], {
        cwd: mirrorPath,
        config: hubHttpConfig(options.tokenFor(agent), options.caFile),
        timeoutMs: HTTP_TIMEOUT_MS,
      });
      return r.ok ? ok(undefined) : err(gitError(r));
    });
    return fetched.ok ? fetched : err(`could not fetch from the run's hub: ${fetched.error}`);
  };
  // Main and the agent's own refs (the hub shows each token main and its own agent's refs only).
  const fetchAgentRefs = (agent: string) =>
    serial(() => fetchWith(agent, ['+refs/heads/*:refs/heads/*', '+refs/colony/wip/*:refs/colony/wip/*']));
  // Main alone, shared: every caller that asks while no main fetch is waiting to start joins the next
  // one (it starts after the request, so it brings a main at least as new). 500 fresh agents opening
  // on one worker made one fetch each, one at a time — most of a 1,000-peer fleet run's dispatch time.
  let nextMainFetch: Promise<Result<void>> | null = null;
  const fetchMain = async (agent: string): Promise<Result<void>> => {
    nextMainFetch ??= serial(() => {
      nextMainFetch = null;
      return fetchWith(agent, [`+refs/heads/${HUB_MAIN}:refs/heads/${HUB_MAIN}`]);
    });
    const shared = await nextMainFetch;
    // The token it used may have been fenced meanwhile: then each caller fetches with its own.
    return shared.ok ? shared : fetchAgentRefs(agent);
  };

  return {
    fetchFor: (agent, { ownRefs }) => (ownRefs ? fetchAgentRefs(agent) : fetchMain(agent)),

    async restoreWip(agent, repo) {
      const wip = await git(['rev-parse', '--verify', '--quiet', `${agentWipRef(agent)}^{commit}`], {
        cwd: mirrorPath,
      });
      if (!wip.ok) return ok(undefined);
      const commit = wip.stdout.trim();
      const env = repoEnv(repo);
      // A snapshot on top of the checkout's commit or of a later one the agent committed but never
      // published (the snapshot's push carried it): restore it. One older than the checkout is history.
      const parent = await git(['rev-parse', `${commit}^`], { cwd: repo.checkout, env });
      if (!parent.ok) return ok(undefined);
      const base = parent.stdout.trim();
      const onTop = await git(['merge-base', '--is-ancestor', 'HEAD', base], { cwd: repo.checkout, env });
      if (!onTop.ok) return ok(undefined);
      // The files as snapshotted, then the branch at the snapshot's parent: uncommitted, as they were.
      const read = await git(['read-tree', '--reset', '-u', commit], {
        cwd: repo.checkout,
        env,
        contain: true,
      });
      if (!read.ok) return err(`could not restore the work in progress of ${agent}: ${gitError(read)}`);
      const reset = await git(['reset', '--quiet', '--mixed', base], {
        cwd: repo.checkout,
        env,
        contain: true,
      });
      return reset.ok ? ok(undefined) : err(gitError(reset));
    },

    async push(agent) {
      // Forced: `sync` rebases the agent's branch onto main, so its next publish is no fast-forward
      // (the hub's own copy moves the same way in-process). The hub takes only the agent's own refs.
      const pushed = await whileOwnerAway(async () => {
        const r = await git(
          ['push', '--quiet', '--no-verify', hubUrl(), `+${agentBranchRef(agent)}:${agentBranchRef(agent)}`],
          {
            cwd: mirrorPath,
            config: [...hubHttpConfig(options.tokenFor(agent), options.caFile), ['push.default', 'nothing']],
            timeoutMs: HTTP_TIMEOUT_MS,
          },
        );
        return r.ok ? ok(undefined) : err(gitError(r));
      });
      if (!pushed.ok) return err(`could not push ${agentBranchRef(agent)} to the run's hub: ${pushed.error}`);
      // The sync tool reads main in the mirror right after publishing: bring the latest one (the
      // agent's branch in the mirror is the one just pushed).
      return fetchMain(agent);
    },

    async pushWip(agent, repo) {
      // The snapshot, in the agent repository's sandbox (agent-git.ts): git writes its objects into
      // the agent's own store, whose folders the agent may have made links.
      const snap = await shInRepo(SNAPSHOT_SCRIPT, [], {
        cwd: repo.checkout,
        env: repoEnv(repo),
        contain: true,
      });
      if (!snap.ok) return err(`work in progress of ${agent}: ${gitError(snap)}`);
      const [tree = '', headCommit = '', headTree = ''] = snap.stdout.trim().split('\n');
      if (![tree, headCommit, headTree].every((id) => OBJECT_ID.test(id)))
        return err(`work in progress of ${agent}: unexpected snapshot output ${snap.stdout.slice(0, 200)}`);
      // The same files on the same commit as last pushed: nothing to do. A clean checkout is pushed
      // once it had a snapshot, so an older snapshot never comes back after the agent undid changes.
      const key = `${headCommit} ${tree}`;
      if (pushedWip.get(agent) === key) return ok(undefined);
      if (!pushedWip.has(agent) && tree === headTree) return ok(undefined);
      const pushed = await whileOwnerAway(async () => {
        const r = await shInRepo(
          PUSH_WIP_SCRIPT,
          [tree, headCommit, `colony: work in progress of ${agent}`, hubUrl(), agentWipRef(agent)],
          {
            cwd: repo.checkout,
            env: { ...repoEnv(repo), ...AGENT_IDENTITY },
            config: [...hubHttpConfig(options.tokenFor(agent), options.caFile), ['commit.gpgsign', 'false']],
            timeoutMs: HTTP_TIMEOUT_MS,
            // In the agent repository's sandbox, with the network to the gateway.
            contain: true,
            network: true,
          },
        );
        return r.ok ? ok(undefined) : err(gitError(r));
      });
      if (!pushed.ok) return err(`could not push the work in progress of ${agent}: ${pushed.error}`);
      pushedWip.set(agent, key);
      return ok(undefined);
    },
  };
}
