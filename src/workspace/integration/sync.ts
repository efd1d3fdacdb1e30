/**
 * `sync`: bring the latest hub main into an agent's repository and say what landed since its last sync.
 * Main's commits are already readable there (the agent repository borrows the hub's objects), so no
 * fetch is needed; the agent's commits are copied into the hub before and after (`publish`).
 *
 * Uncommitted changes are first committed as a WIP commit (the agent's work is never set aside or
 * lost, and a rebase needs a clean tree). Mode 'rebase' (default) replays the agent's commits on
 * main; on a conflict the rebase is aborted and the worktree is exactly as before, with the files
 * named. Mode 'merge' merges main into the branch instead and, on a conflict, leaves the conflict
 * markers in the named files for the agent to resolve (the next `merge_request` commits the merge).
 * Before a rebase rewrites commits, the old tip is pinned as refs/colony/presync/<agent>/<sha>.
 */
import path from 'node:path';
import { agentRepoAt } from '../../core/agent-layout.js';
import type { Result } from '../../lang/result.js';
import type { EventLog } from '../../store/types.js';
import { AGENT_COMMIT_CONFIG, git, gitError } from '../git/git.js';
import { OBJECT_ID, readHeadFile, readNoFollowGitFile } from '../git/loose-ref.js';
import { HUB_MAIN } from '../hub/hub.js';
import { readHubMain } from '../hub/main.js';
import { commitChanges } from '../worktree.js';
import { revParse, updateRefs } from './hub-git.js';

export interface SyncOptions {
  runId: string;
  agent: string;
  worktree: string;
  hubPath: string;
  log: EventLog;
  /** Copies the agent's current commit into the hub as its branch. */
  publish(): Promise<Result<string>>;
  mode?: 'rebase' | 'merge';
}

export interface LandedItem {
  mr: number;
  commit: string;
  agent: string;
  note: string;
}

export type SyncResult =
  | {
      ok: true;
      status: 'synced' | 'up_to_date' | 'conflict';
      branch: string;
      main: string;
      head: string;
      /** Set when uncommitted changes were committed before syncing. */
      wipCommit: string | null;
      conflicts: string[];
      /** Mode 'merge' with conflicts: the merge is in progress in the worktree. */
      merging: boolean;
      landed: LandedItem[];
    }
  | { ok: false; error: string };

export async function syncWorktree(options: SyncOptions): Promise<SyncResult> {
  const cwd = path.resolve(options.worktree);
  const hub = path.resolve(options.hubPath);
  // The agent's git directory from Colony's record (never the checkout's `.git`), looked up once.
  const repo: RepoAt = { cwd, gitDir: agentRepoAt(cwd)?.gitDir ?? null };
  const branchRes = await branchOf(repo);
  if (!branchRes.ok) return { ok: false, error: `worktree ${cwd} is not on a branch: ${branchRes.error}` };
  const branch = branchRes.value;
  if (await inProgress(repo, 'MERGE_HEAD')) {
    // A merge that left conflicts: sync with merge: true asked again (the same call run again after a
    // crash, or the agent asking) answers as it did, so a resumed agent reads what it read before.
    const conflicts = options.mode === 'merge' ? await unmergedFiles(cwd) : [];
    if (conflicts.length > 0) return mergeInProgress(options, cwd, branch, hub, conflicts);
    return {
      ok: false,
      error:
        'a merge of main is in progress in your worktree: resolve the conflict markers, then merge_request',
    };
  }
  if (await inProgress(repo, 'REBASE_HEAD')) await git(['rebase', '--abort'], { cwd, contain: true });

  let wipCommit: string | null = null;
  const wip = await commitChanges(cwd, 'WIP (committed by sync)', { hub });
  if (!wip.ok) return { ok: false, error: wip.error };
  if (wip.status === 'committed') wipCommit = wip.commit;
  // The hub holds the pre-sync commits (pinned below before a rebase rewrites them).
  const published = await options.publish();
  if (!published.ok) return { ok: false, error: published.error };

  const main = await readHubMain(hub);
  const before = await headOf(repo);
  if (main === null || before === null)
    return { ok: false, error: 'cannot read hub main or the worktree HEAD' };

  // The agent's own `main` follows the hub's (git diff main, git log main.. work in its bash).
  if (branch !== HUB_MAIN) await git(['update-ref', `refs/heads/${HUB_MAIN}`, main], { cwd, contain: true });

  let status: 'synced' | 'up_to_date' | 'conflict' = 'synced';
  let conflicts: string[] = [];
  let merging = false;
  // One merge-base says both: main in the branch (up to date), the branch in main (a fast-forward).
  const base = await mergeBase(hub, main, before);
  if (base === main) {
    status = 'up_to_date';
  } else if (options.mode === 'merge') {
    const merged = await git([...AGENT_COMMIT_CONFIG, 'merge', '--no-edit', '--quiet', main], {
      cwd,
      contain: true,
    });
    if (!merged.ok) {
      conflicts = await unmergedFiles(cwd);
      if (conflicts.length === 0) return { ok: false, error: `git merge failed: ${gitError(merged)}` };
      status = 'conflict';
      merging = true;
    }
  } else {
    // Keep the pre-rebase commits reachable: a rebase rewrites them.
    if (base !== before) {
      const pin = await updateRefs(hub, [
        { ref: `refs/colony/presync/${options.agent}/${before}`, to: before },
      ]);
      if (!pin.ok) return { ok: false, error: `could not pin ${before}: ${pin.error}` };
    }
    const rebased = await git([...AGENT_COMMIT_CONFIG, 'rebase', '--quiet', main], { cwd, contain: true });
    if (!rebased.ok) {
      conflicts = await unmergedFiles(cwd);
      await git(['rebase', '--abort'], { cwd, contain: true });
      const after = await revParse(cwd, 'HEAD');
      if (after !== before) return { ok: false, error: `rebase failed and left HEAD at ${after}` };
      if (conflicts.length === 0) return { ok: false, error: `git rebase failed: ${gitError(rebased)}` };
      status = 'conflict';
    }
  }
  const head = (await headOf(repo)) ?? before;
  if (head !== before && !merging) {
    const after = await options.publish();
    if (!after.ok) return { ok: false, error: after.error };
  }
  const landed = await landedSinceLastSync(options.log, options.runId, options.agent);
  await options.log.append({
    runId: options.runId,
    agent: options.agent,
    kind: 'workspace.synced',
    data: { branch, main, landedSince: landed.length, conflicts },
  });
  return { ok: true, status, branch, main, head, wipCommit, conflicts, merging, landed };
}

/** The answer for a merge of main still unresolved in the worktree: its conflicts, nothing changed. */
async function mergeInProgress(
  options: SyncOptions,
  cwd: string,
  branch: string,
  hub: string,
  conflicts: string[],
): Promise<SyncResult> {
  const main = await readHubMain(hub);
  const head = await revParse(cwd, 'HEAD');
  if (main === null || head === null)
    return { ok: false, error: 'cannot read hub main or the worktree HEAD' };
  const landed = await landedSinceLastSync(options.log, options.runId, options.agent);
  return {
    ok: true,
    status: 'conflict',
    branch,
    main,
    head,
    wipCommit: null,
    conflicts,
    merging: true,
    landed,
  };
}

/** merge.landed events after the agent's last workspace.synced (all of them before its first sync). */
export async function landedSinceLastSync(
  log: EventLog,
  runId: string,
  agent: string,
): Promise<LandedItem[]> {
  const syncs = await log.read(runId, { agent, kinds: ['workspace.synced'] });
  const after = syncs.length > 0 ? (syncs[syncs.length - 1]?.seq ?? 0) : 0;
  // Only what landed since then; the requests' authors and notes from the run's index (read once,
  // then only new requests): every sync of 300 peers read every request and landing of the run.
  // Landings first: each one's request was logged before it, so the index read after has them all.
  const landings = await log.read(runId, { kinds: ['merge.landed'], afterSeq: after });
  const requests = await requestsOf(log, runId);
  const landed: LandedItem[] = [];
  for (const event of landings) {
    if (event.kind !== 'merge.landed') continue;
    const data = event.data;
    const request = requests.get(data.mr);
    landed.push({
      mr: data.mr,
      commit: data.commit,
      agent: request?.agent ?? '',
      note: request?.note ?? '',
    });
  }
  return landed;
}

interface RequestIndex {
  cursor: number;
  requests: Map<number, { agent: string; note: string }>;
  /** The read in progress, and the one callers join while it has not started (at most two). */
  running: Promise<void> | null;
  queued: Promise<void> | null;
}

/** Per log and run: the merge requests seen so far (a request is logged before it can land). */
const requestIndexes = new WeakMap<EventLog, Map<string, RequestIndex>>();

async function requestsOf(
  log: EventLog,
  runId: string,
): Promise<Map<number, { agent: string; note: string }>> {
  let byRun = requestIndexes.get(log);
  if (!byRun) {
    byRun = new Map();
    requestIndexes.set(log, byRun);
  }
  let index = byRun.get(runId);
  if (!index) {
    index = { cursor: 0, requests: new Map(), running: null, queued: null };
    byRun.set(runId, index);
  }
  await nextRead(log, runId, index);
  return index.requests;
}

/**
 * A read of the requests logged since the index's cursor that starts after the caller asked: callers
 * join the one waiting to start (a thousand peers syncing at once share two reads, not a thousand
 * one after another).
 */
function nextRead(log: EventLog, runId: string, index: RequestIndex): Promise<void> {
  if (index.queued) return index.queued;
  const previous = index.running;
  // The promise itself, known to the read once it has started (it always starts after an await).
  const self: { read?: Promise<void> } = {};
  const read = (async () => {
    await (previous ?? Promise.resolve()).catch(() => {});
    // Started: a caller from now on needs the read after this one.
    if (index.queued === self.read) index.queued = null;
    index.running = self.read ?? null;
    try {
      const events = await log.read(runId, { kinds: ['merge.requested'], afterSeq: index.cursor });
      for (const event of events) {
        index.cursor = Math.max(index.cursor, event.seq);
        if (event.kind === 'merge.requested')
          index.requests.set(event.data.mr, { agent: event.agent ?? '', note: event.data.note });
      }
    } finally {
      if (index.running === self.read) index.running = null;
    }
  })();
  self.read = read;
  index.queued = read;
  return read;
}

/*
 * The state of an agent's repository read from its git directory's files (Colony's record of where it
 * is, never the checkout's `.git`), without a git process — a sync started ~13 of them, and at 300
 * peers syncs waited seconds for each (bench/README.md, issue 29). The files are the agent's: read
 * without following a link, and anything unusual (a link, a symbolic ref, a half-written file) is
 * left to git, as before. Outside an agent repository (tests' plain worktrees), git answers.
 */

/** A worktree, and its agent repository's git directory (null: not an agent repository). */
interface RepoAt {
  cwd: string;
  gitDir: string | null;
}

/** The branch HEAD names (short), from the HEAD file; else from git. */
async function branchOf({ cwd, gitDir }: RepoAt): Promise<Result<string>> {
  if (gitDir) {
    const file = await readNoFollowGitFile(gitDir, 'HEAD');
    const branch = file.ok ? /^ref: refs\/heads\/(\S+)\s*$/.exec(file.text)?.[1] : undefined;
    if (branch) return { ok: true, value: branch };
  }
  const named = await git(['symbolic-ref', '--short', 'HEAD'], { cwd });
  return named.ok ? { ok: true, value: named.stdout.trim() } : { ok: false, error: gitError(named) };
}

/** HEAD's commit, from the HEAD and ref files; else from git. */
async function headOf({ cwd, gitDir }: RepoAt): Promise<string | null> {
  const fromFiles = gitDir ? await readHeadFile(gitDir, readNoFollowGitFile) : null;
  return fromFiles ?? revParse(cwd, 'HEAD');
}

/** Whether a merge or rebase stopped in the repository (its MERGE_HEAD or REBASE_HEAD file). */
async function inProgress({ cwd, gitDir }: RepoAt, name: 'MERGE_HEAD' | 'REBASE_HEAD'): Promise<boolean> {
  if (gitDir) {
    const file = await readNoFollowGitFile(gitDir, name);
    if (!file.ok && file.absent) return false;
    const ids = file.ok ? file.text.split('\n').filter((line) => line.trim() !== '') : [];
    if (ids.length > 0 && ids.every((id) => OBJECT_ID.test(id.trim()))) return true;
  }
  return (await git(['rev-parse', '--verify', '--quiet', name], { cwd })).ok;
}

/** The merge base of two commits in the hub; null when they share none (or git failed). */
async function mergeBase(hub: string, a: string, b: string): Promise<string | null> {
  const result = await git(['merge-base', a, b], { cwd: hub });
  return result.ok ? result.stdout.trim() || null : null;
}

async function unmergedFiles(cwd: string): Promise<string[]> {
  const result = await git(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd });
  return [...new Set(result.stdout.split('\0').filter((name) => name !== ''))];
}
