/**
 * Trees for grading and for runs: a task's start state as a git checkout (a folder repository
 * committed as one commit, or a git source checked out at its commit), plain copies of a working tree
 * and patches applied to them. Failures are returned as data with git's own message.
 */
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { err, ok, type Result } from '../../lang/result.js';
import { git, gitError } from '../../workspace/git/git.js';
import type { Task } from './task.js';

/** Identity and dates of the start commit: the same task gives the same commit id on every machine. */
const START_COMMIT_ENV = {
  GIT_AUTHOR_NAME: 'Colony Eval',
  GIT_AUTHOR_EMAIL: 'eval@colony.local',
  GIT_COMMITTER_NAME: 'Colony Eval',
  GIT_COMMITTER_EMAIL: 'eval@colony.local',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
};

/**
 * The task's start state in `dest` (a new or empty folder) as a git checkout on branch `main`,
 * without its hidden tests or reference fix: what the agents get. Returns the start commit.
 */
export async function materializeRepo(task: Task, dest: string): Promise<Result<{ commit: string }>> {
  const repo = task.spec.repo;
  if ('git' in repo) {
    // A relative local path is relative to the task folder; URLs and absolute paths stay as they are.
    const local = !/^[a-z][a-z0-9+.-]*:/i.test(repo.git) && !path.isAbsolute(repo.git);
    return cloneAt(local ? path.join(task.dir, repo.git) : repo.git, repo.commit, dest);
  }
  const copied = await copyTree(path.join(task.dir, repo.folder), dest);
  if (!copied.ok) return copied;
  const steps: string[][] = [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['-c', 'commit.gpgsign=false', 'commit', '-q', '--allow-empty', '-m', `${task.spec.id}: start`],
    ['rev-parse', 'HEAD'],
  ];
  let out = '';
  for (const args of steps) {
    const result = await git(args, { cwd: dest, env: START_COMMIT_ENV });
    if (!result.ok) return err(`cannot commit the start state of ${task.spec.id}: ${gitError(result)}`);
    out = result.stdout.trim();
  }
  return ok({ commit: out });
}

/**
 * `source` (a URL or a repository path) at `commit`, checked out detached in `dest`. Only that commit
 * is fetched when the source allows it (GitHub does); otherwise everything is, then the commit.
 */
export async function cloneAt(
  source: string,
  commit: string,
  dest: string,
): Promise<Result<{ commit: string }>> {
  const init = await git(['init', '-q', dest], { cwd: path.dirname(path.resolve(dest)) });
  if (!init.ok) return err(`cannot create ${dest}: ${gitError(init)}`);
  const run = (args: string[]) => git(args, { cwd: dest });
  const shallow = await run(['fetch', '-q', '--depth=1', '--no-tags', source, commit]);
  if (!shallow.ok) {
    const full = await run(['fetch', '-q', '--tags', source, '+refs/heads/*:refs/remotes/source/*']);
    if (!full.ok) return err(`cannot fetch ${source}: ${gitError(full)}`);
  }
  const checkout = await run(['-c', 'advice.detachedHead=false', 'checkout', '-q', '--detach', commit]);
  if (!checkout.ok) return err(`cannot check out ${commit} of ${source}: ${gitError(checkout)}`);
  return ok({ commit });
}

/**
 * A copy of a working tree's files, without its git metadata: grading never writes to the agents'
 * repository, and a copied `.git` file of a linked worktree would point back at it.
 */
export async function copyTree(from: string, to: string): Promise<Result<void>> {
  try {
    await cp(from, to, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => path.basename(source) !== '.git',
    });
    return ok(undefined);
  } catch (e) {
    return err(`cannot copy ${from}: ${(e as Error).message}`);
  }
}

/**
 * Applies a patch file to the files of `dir` (a checkout or a plain copy). Git is kept from finding a
 * repository above a plain copy, so the paths are the patch's, relative to `dir`.
 */
export async function applyPatch(dir: string, patchFile: string): Promise<Result<void>> {
  const applied = await git(['apply', '--whitespace=nowarn', path.resolve(patchFile)], {
    cwd: dir,
    env: { GIT_CEILING_DIRECTORIES: path.dirname(path.resolve(dir)) },
  });
  return applied.ok ? ok(undefined) : err(`cannot apply ${path.basename(patchFile)}: ${gitError(applied)}`);
}
