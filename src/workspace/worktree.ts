/**
 * Per-agent worktrees of the hub. Every worktree shares the hub's object store (git worktree keeps
 * only an index and HEAD per worktree), so a thousand agents do not need a thousand object copies.
 * Creation is idempotent: after a crash a re-run reuses the worktree with its files intact.
 */
import { existsSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AGENT_COMMIT_CONFIG, type GitResult, git, gitError } from './git.js';
import { withHubLock } from './hub-lock.js';

export type WorktreeResult =
  | { ok: true; path: string; branch: string; head: string; created: boolean }
  | { ok: false; error: string };

export type CommitResult =
  | { ok: true; status: 'committed'; commit: string; files: string[] }
  | { ok: true; status: 'nothing-to-commit' }
  | { ok: false; error: string };

interface WorktreeEntry {
  path: string;
  branch: string | null;
  locked: string | null;
  prunable: boolean;
}

export function addWorktree(
  hubPath: string,
  worktreePath: string,
  branch: string,
  startCommit: string,
): Promise<WorktreeResult> {
  const hub = path.resolve(hubPath);
  return withHubLock(hub, () => addWorktreeLocked(hub, path.resolve(worktreePath), branch, startCommit));
}

async function addWorktreeLocked(
  hub: string,
  wt: string,
  branch: string,
  startCommit: string,
): Promise<WorktreeResult> {
  const valid = await git(['check-ref-format', `refs/heads/${branch}`], { cwd: hub });
  if (!valid.ok) return { ok: false, error: `invalid branch name: ${branch}` };

  let entries = await listWorktrees(hub);
  if (!entries.ok) return entries;
  const existing = entries.list.find((entry) => samePath(entry.path, wt));
  if (existing) {
    if (existing.locked === 'initializing') {
      // A crash during `worktree add` left a half-checked-out tree: it holds no agent work yet.
      await gitRetrying(['worktree', 'remove', '--force', '--force', wt], hub);
    } else if (existing.prunable || !existsSync(path.join(wt, '.git'))) {
      await gitRetrying(['worktree', 'prune'], hub);
    } else if (existing.branch !== `refs/heads/${branch}`) {
      return {
        ok: false,
        error: `worktree ${wt} exists on ${existing.branch ?? 'a detached HEAD'}, not on ${branch}`,
      };
    } else {
      return describe(wt, branch, false);
    }
    entries = await listWorktrees(hub);
    if (!entries.ok) return entries;
  }
  const elsewhere = entries.list.find((entry) => entry.branch === `refs/heads/${branch}`);
  if (elsewhere) return { ok: false, error: `branch ${branch} is already checked out at ${elsewhere.path}` };

  await mkdir(path.dirname(wt), { recursive: true });
  const branchExists = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: hub });
  // An existing branch (e.g. the worktree folder was lost) keeps its commits; a new one starts here.
  const args = branchExists.ok
    ? ['worktree', 'add', '--quiet', wt, branch]
    : ['worktree', 'add', '--quiet', '-b', branch, wt, startCommit];
  const added = await gitRetrying(args, hub);
  if (!added.ok) return { ok: false, error: `could not create worktree ${wt}: ${gitError(added)}` };
  return describe(wt, branch, true);
}

/** Stage everything (`git add -A`) and commit it as the Colony agent, without hooks. */
export async function commitAll(worktreePath: string, message: string): Promise<CommitResult> {
  const cwd = path.resolve(worktreePath);
  const add = await git(['add', '-A'], { cwd });
  if (!add.ok) return { ok: false, error: `git add failed in ${cwd}: ${gitError(add)}` };
  const staged = await git(['diff', '--cached', '--name-only', '--no-renames', '-z'], { cwd });
  if (!staged.ok) return { ok: false, error: `git diff failed in ${cwd}: ${gitError(staged)}` };
  const files = staged.stdout.split('\0').filter((name) => name !== '');
  if (files.length === 0) return { ok: true, status: 'nothing-to-commit' };
  const commit = await git([...AGENT_COMMIT_CONFIG, 'commit', '--no-verify', '--quiet', '-m', message], {
    cwd,
  });
  if (!commit.ok) return { ok: false, error: `git commit failed in ${cwd}: ${gitError(commit)}` };
  const head = await git(['rev-parse', 'HEAD'], { cwd });
  return { ok: true, status: 'committed', commit: head.stdout.trim(), files };
}

/** Remove the worktree folder; its branch (and commits) stay in the hub. */
export function removeWorktree(
  hubPath: string,
  worktreePath: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const hub = path.resolve(hubPath);
  const wt = path.resolve(worktreePath);
  return withHubLock(hub, async () => {
    if (existsSync(wt)) {
      const removed = await gitRetrying(['worktree', 'remove', '--force', '--force', wt], hub);
      if (!removed.ok) return { ok: false, error: `could not remove worktree ${wt}: ${gitError(removed)}` };
    }
    await gitRetrying(['worktree', 'prune'], hub);
    return { ok: true };
  });
}

/** Races with worktree administration in other processes show up as these transient failures. */
const TRANSIENT =
  /failed to read worktrees\/|commondir|gitdir|\.lock': File exists|Unable to create .*\.lock/;

async function gitRetrying(args: string[], hub: string): Promise<GitResult> {
  let result = await git(args, { cwd: hub });
  for (let attempt = 1; attempt <= 5 && !result.ok && TRANSIENT.test(result.stderr); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.random() * 50));
    // A failed `worktree add` may leave its folder behind; a retry needs it gone or empty.
    if (args[1] === 'add') await git(['worktree', 'prune'], { cwd: hub });
    result = await git(args, { cwd: hub });
  }
  return result;
}

async function describe(wt: string, branch: string, created: boolean): Promise<WorktreeResult> {
  const head = await git(['rev-parse', 'HEAD'], { cwd: wt });
  if (!head.ok) return { ok: false, error: `worktree ${wt} has no valid HEAD: ${gitError(head)}` };
  return { ok: true, path: wt, branch, head: head.stdout.trim(), created };
}

async function listWorktrees(
  hub: string,
): Promise<{ ok: true; list: WorktreeEntry[] } | { ok: false; error: string }> {
  const result = await gitRetrying(['worktree', 'list', '--porcelain', '-z'], hub);
  if (!result.ok)
    return { ok: false, error: `not a hub (git worktree list failed): ${hub}: ${gitError(result)}` };
  const list: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const field of result.stdout.split('\0')) {
    if (field.startsWith('worktree ')) {
      current = { path: field.slice('worktree '.length), branch: null, locked: null, prunable: false };
      list.push(current);
    } else if (current && field.startsWith('branch ')) {
      current.branch = field.slice('branch '.length);
    } else if (current && (field === 'locked' || field.startsWith('locked '))) {
      current.locked = field.slice('locked '.length);
    } else if (current && (field === 'prunable' || field.startsWith('prunable '))) {
      current.prunable = true;
    }
  }
  return { ok: true, list };
}

function samePath(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b) || realOrSelf(a) === realOrSelf(b);
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
