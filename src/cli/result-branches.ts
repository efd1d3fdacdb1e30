/**
 * Result branches (`colony/<run-id>`) in the user's repositories, for `colony clean`: a branch is
 * removed only while it still is what Colony fetched (the run's `result.fetched` commit) and is not
 * checked out; one the user moved (committed on, reset) is theirs and is kept, with the reason.
 */
import { existsSync } from 'node:fs';
import { resultBranchName } from '../run/run-spec.js';
import type { Store } from '../store/index.js';
import { git } from '../workspace/git/git.js';

export type BranchState =
  | { kind: 'absent' }
  | { kind: 'removable'; branch: string; commit: string }
  | { kind: 'kept'; branch: string; why: string };

/** What `colony clean` may do with a run's result branch in `repo`. */
export async function resultBranchState(store: Store, runId: string, repo: string): Promise<BranchState> {
  const branch = resultBranchName(runId);
  if (!existsSync(repo)) return { kind: 'absent' };
  const tip = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], {
    cwd: repo,
    userConfig: true,
  });
  if (!tip.ok) return { kind: 'absent' };
  const commit = tip.stdout.trim();
  const [fetched] = await store.log.read(runId, { kinds: ['result.fetched'], limit: 1 });
  if (fetched && fetched.data.commit !== commit)
    return { kind: 'kept', branch, why: 'it moved since the run fetched it (your commits?)' };
  const worktrees = await git(['worktree', 'list', '--porcelain'], { cwd: repo, userConfig: true });
  if (worktrees.ok && worktrees.stdout.split('\n').includes(`branch refs/heads/${branch}`))
    return { kind: 'kept', branch, why: 'it is checked out' };
  return { kind: 'removable', branch, commit };
}

/** Deletes the branch if it still points at `commit` (compare-and-delete: a concurrent move wins). */
export async function removeResultBranch(
  repo: string,
  branch: string,
  commit: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const deleted = await git(['update-ref', '-d', `refs/heads/${branch}`, commit], {
    cwd: repo,
    userConfig: true,
  });
  return deleted.ok ? { ok: true } : { ok: false, error: deleted.stderr.trim() };
}
