/**
 * Per-agent worktrees of the hub. Every worktree shares the hub's object store (git worktree keeps
 * only an index and HEAD per worktree), so a thousand agents do not need a thousand object copies.
 * Creation is idempotent: after a crash a re-run reuses the worktree with its files intact.
 * Git calls are kept to one or two per new worktree: process starts dominate at scale.
 */
import { realpathSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { agentRepoAt } from '../core/agent-layout.js';
import { err, ok, type Result } from '../lang/result.js';
import { commitAgentRepo } from './agent-repo/agent-commit.js';
import { AGENT_COMMIT_CONFIG, type GitResult, git, gitError } from './git/git.js';
import { isValidBranchName } from './git/ref-name.js';
import { pastDeadLock } from './git/stale-locks.js';
import { withHubLock } from './hub/lock.js';

export type WorktreeResult =
  | { ok: true; path: string; branch: string; head: string; created: boolean }
  | { ok: false; error: string };

export type CommitResult =
  | { ok: true; status: 'committed'; commit: string; files: string[]; nested?: string[] }
  | { ok: true; status: 'nothing-to-commit'; nested?: string[] }
  | { ok: false; error: string };

export function addWorktree(
  hubPath: string,
  worktreePath: string,
  branch: string,
  startCommit: string,
): Promise<WorktreeResult> {
  if (!isValidBranchName(branch))
    return Promise.resolve({ ok: false, error: `invalid branch name: ${branch}` });
  const hub = realOrSelf(path.resolve(hubPath));
  const wt = path.resolve(worktreePath);
  return withHubLock(hub, () => addWorktreeLocked(hub, wt, branch, startCommit));
}

async function addWorktreeLocked(
  hub: string,
  wt: string,
  branch: string,
  startCommit: string,
): Promise<WorktreeResult> {
  const link = await readWorktreeLink(hub, wt);
  if (link.kind === 'foreign') return { ok: false, error: link.error };
  if (link.kind === 'linked') {
    if (link.locked === 'initializing') {
      // A crash during `worktree add` left a half-checked-out tree: it holds no agent work yet.
      await gitRetrying(['worktree', 'remove', '--force', '--force', wt], hub);
    } else if (link.head !== `ref: refs/heads/${branch}`) {
      const on = link.head.replace(/^ref: refs\/heads\//, '');
      return { ok: false, error: `worktree ${wt} exists on ${on}, not on ${branch}` };
    } else {
      return describe(wt, branch, false);
    }
  }
  await mkdir(path.dirname(wt), { recursive: true });
  // Optimistic: create the branch; if it exists (e.g. the folder was lost), check it out with its commits.
  const added = await gitRetrying(['worktree', 'add', '--quiet', '-b', branch, wt, startCommit], hub);
  if (added.ok && /^[0-9a-f]{40}$/.test(startCommit))
    return { ok: true, path: wt, branch, head: startCommit, created: true };
  if (added.ok) return describe(wt, branch, true);
  let existing = added;
  if (/a branch named .* already exists/.test(added.stderr)) {
    existing = await gitRetrying(['worktree', 'add', '--quiet', wt, branch], hub);
  }
  if (!existing.ok && /missing but (already registered|locked) worktree/.test(existing.stderr)) {
    await gitRetrying(['worktree', 'prune'], hub);
    existing = await gitRetrying(['worktree', 'add', '--quiet', wt, branch], hub);
  }
  if (!existing.ok) return { ok: false, error: `could not create worktree ${wt}: ${gitError(existing)}` };
  return describe(wt, branch, true);
}

/**
 * Stage everything (`git add -A`) and commit it as the Colony agent, without hooks. `--sparse`: in a
 * lazy checkout (lazy-checkout.ts) a file outside the patterns is staged too, whoever wrote it.
 */
export async function commitAll(worktreePath: string, message: string): Promise<CommitResult> {
  const cwd = path.resolve(worktreePath);
  let nested: string[] = [];
  if (agentRepoAt(cwd)) {
    const made = await commitAgentRepo(cwd, message);
    if (!made.ok) return made;
    nested = made.nested;
    if (made.status === 'nothing-to-commit')
      return withNested({ ok: true, status: 'nothing-to-commit' }, nested);
  } else {
    const made = await stageAndCommit(cwd, message);
    if (made !== null) return made;
  }
  // The commit and what it changed against its first parent (a merge commit: what the merge brought).
  const show = ['show', '--diff-merges=first-parent', '--no-renames', '--name-only', '-z', '--format=%H'];
  const shown = await git([...show, 'HEAD'], { cwd });
  if (!shown.ok) return { ok: false, error: `git show failed in ${cwd}: ${gitError(shown)}` };
  const [head = '', ...names] = shown.stdout.split('\0');
  const files = names.map((name) => name.replace(/^\n/, '')).filter((name) => name !== '');
  return withNested({ ok: true, status: 'committed', commit: head.trim(), files }, nested);
}

/** `nested` on a result only when there were nested repositories (the usual result stays as it was). */
function withNested<T extends object>(result: T, nested: string[]): T & { nested?: string[] } {
  return nested.length > 0 ? { ...result, nested } : result;
}

export type CommitIdResult =
  | { ok: true; status: 'committed'; commit: string; nested?: string[] }
  | { ok: true; status: 'nothing-to-commit'; nested?: string[] }
  | { ok: false; error: string };

/**
 * commitAll without the list of files (merge_request's path, taken by every peer's every change), in
 * an agent repository (agent-commit.ts): one sandboxed shell of git plumbing, the branch moved by
 * Colony. `hub`: the new objects are written into the hub's store, so publishing the commit needs no
 * copy (agent-repo.ts); when that fails (HEAD or an index entry is an object of the agent's own store
 * only: it committed in its own bash), the commit is made in its own store.
 */
export async function commitChanges(
  worktreePath: string,
  message: string,
  options: { hub?: string } = {},
): Promise<CommitIdResult> {
  const cwd = path.resolve(worktreePath);
  if (!agentRepoAt(cwd)) {
    const made = await stageAndCommit(cwd, message);
    if (made !== null) return made;
    const head = await git(['rev-parse', 'HEAD'], { cwd });
    return head.ok
      ? { ok: true, status: 'committed', commit: head.stdout.trim() }
      : { ok: false, error: `could not read the new commit in ${cwd}: ${gitError(head)}` };
  }
  const made = await commitAgentRepo(
    cwd,
    message,
    options.hub ? { hubObjects: path.resolve(options.hub, 'objects') } : {},
  );
  if (!made.ok) return made;
  const result: CommitIdResult =
    made.status === 'committed'
      ? { ok: true, status: 'committed', commit: made.commit }
      : { ok: true, status: 'nothing-to-commit' };
  return withNested(result, made.nested);
}

/** `add` and `commit`; null when a commit was made, else the outcome. */
async function stageAndCommit(
  cwd: string,
  message: string,
): Promise<{ ok: true; status: 'nothing-to-commit' } | { ok: false; error: string } | null> {
  const options = { cwd };
  const add = await git(['add', '-A', '--sparse'], options);
  if (!add.ok) return { ok: false, error: `git add failed in ${cwd}: ${gitError(add)}` };
  const commit = await git(
    [...AGENT_COMMIT_CONFIG, 'commit', '--no-verify', '--quiet', '-m', message],
    options,
  );
  if (commit.ok) return null;
  // Nothing staged (commit exits 1): a merge_request with no new change, the usual failure.
  const nothingStaged = await git(['diff', '--cached', '--quiet'], options);
  if (nothingStaged.ok) return { ok: true, status: 'nothing-to-commit' };
  return { ok: false, error: `git commit failed in ${cwd}: ${gitError(commit)}` };
}

/** A checkout's commit and whether it holds anything uncommitted (untracked files count). */
export interface WorktreeState {
  /** HEAD's commit; null on a branch with no commit yet. */
  head: string | null;
  clean: boolean;
}

/**
 * One `git status` instead of `add -A` + `diff --cached`: releasing a finished agent whose work is
 * all committed (the usual case: merge_request commits it) then costs one git process, not six.
 */
export async function worktreeState(worktreePath: string): Promise<Result<WorktreeState>> {
  const cwd = path.resolve(worktreePath);
  const status = await git(['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'], { cwd });
  if (!status.ok) return err(`git status failed in ${cwd}: ${gitError(status)}`);
  const records = status.stdout.split('\0').filter((r) => r !== '');
  const oid = records.find((r) => r.startsWith('# branch.oid '))?.slice('# branch.oid '.length);
  return ok({
    head: oid && oid !== '(initial)' ? oid : null,
    clean: records.every((r) => r.startsWith('# ')),
  });
}

/** Remove the worktree folder; its branch (and commits) stay in the hub. */
export function removeWorktree(
  hubPath: string,
  worktreePath: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const hub = realOrSelf(path.resolve(hubPath));
  const wt = path.resolve(worktreePath);
  return withHubLock(hub, async () => {
    const link = await readWorktreeLink(hub, wt);
    if (link.kind === 'foreign') return { ok: false, error: link.error };
    if (link.kind === 'linked') {
      const removed = await gitRetrying(['worktree', 'remove', '--force', '--force', wt], hub);
      if (!removed.ok) return { ok: false, error: `could not remove worktree ${wt}: ${gitError(removed)}` };
    }
    await gitRetrying(['worktree', 'prune'], hub);
    return { ok: true };
  });
}

type WorktreeLink =
  | { kind: 'none' }
  | { kind: 'foreign'; error: string }
  | { kind: 'linked'; head: string; locked: string | null };

/** Reads `<wt>/.git` and the hub's admin folder it points to, without starting git. */
async function readWorktreeLink(hub: string, wt: string): Promise<WorktreeLink> {
  let dotGit: string;
  try {
    dotGit = await readFile(path.join(wt, '.git'), 'utf8');
  } catch (error) {
    // A `.git` folder means a repository of its own, never one of our worktrees.
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') {
      return { kind: 'foreign', error: `${wt} exists but is not a worktree of the hub ${hub}` };
    }
    return { kind: 'none' };
  }
  const admin = /^gitdir: (.+)$/m.exec(dotGit)?.[1]?.trim();
  const adminDir = admin ? path.resolve(wt, admin) : null;
  if (!adminDir || realOrSelf(path.dirname(path.dirname(adminDir))) !== hub) {
    return { kind: 'foreign', error: `${wt} exists but is not a worktree of the hub ${hub}` };
  }
  const head = await readFile(path.join(adminDir, 'HEAD'), 'utf8').catch(() => null);
  if (head === null) return { kind: 'none' }; // admin data gone (pruned): the folder is stale
  const locked = await readFile(path.join(adminDir, 'locked'), 'utf8').catch(() => null);
  return { kind: 'linked', head: head.trim(), locked: locked === null ? null : locked.trim() };
}

async function describe(wt: string, branch: string, created: boolean): Promise<WorktreeResult> {
  const head = await git(['rev-parse', 'HEAD'], { cwd: wt });
  if (!head.ok) return { ok: false, error: `worktree ${wt} has no valid HEAD: ${gitError(head)}` };
  return { ok: true, path: wt, branch, head: head.stdout.trim(), created };
}

/** Races with worktree administration in other processes show up as these transient failures. */
const TRANSIENT = /failed to read worktrees\/|commondir|Unable to create .*\.lock|\.lock': File exists/;

async function gitRetrying(args: string[], hub: string): Promise<GitResult> {
  // Still locked after a few tries: a lock a killed process left (docs/recovery.md) is removed once dead.
  return pastDeadLock(
    hub,
    async () => {
      let result = await git(args, { cwd: hub });
      for (let attempt = 1; attempt <= 5 && !result.ok && TRANSIENT.test(result.stderr); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.random() * 50));
        result = await git(args, { cwd: hub });
      }
      return result;
    },
    (failed) => failed.stderr,
  );
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
