/**
 * Bring a run's result into the user's repository as a branch (`colony/<run-id>`) without touching
 * their working tree, index or current branch: a fetch that only writes one ref (and objects).
 */
import path from 'node:path';
import { git, gitError } from './git/git.js';
import { isValidBranchName } from './git/ref-name.js';

export type FetchResult = { ok: true; ref: string; commit: string } | { ok: false; error: string };

export async function fetchResult(
  userRepo: string,
  hubPath: string,
  branch: string,
  targetBranch: string,
): Promise<FetchResult> {
  const cwd = path.resolve(userRepo);
  const ref = `refs/heads/${targetBranch}`;
  if (!isValidBranchName(targetBranch))
    return { ok: false, error: `invalid result branch name: ${targetBranch}` };
  // git itself refuses to fetch into a branch checked out in any worktree, so the user's current
  // branch cannot be moved; colony/<run-id> is never checked out by us.
  const fetched = await git(
    [
      '-c',
      'gc.auto=0',
      '-c',
      'maintenance.auto=false',
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      '--no-recurse-submodules',
      path.resolve(hubPath),
      `+refs/heads/${branch}:${ref}`,
    ],
    { cwd, userConfig: true },
  );
  if (!fetched.ok)
    return { ok: false, error: `could not fetch ${branch} into ${targetBranch}: ${gitError(fetched)}` };
  const commit = await git(['rev-parse', '--verify', ref], { cwd, userConfig: true });
  if (!commit.ok)
    return { ok: false, error: `fetched ${targetBranch} but cannot read it: ${gitError(commit)}` };
  return { ok: true, ref, commit: commit.stdout.trim() };
}
