/** Inspect the user's repository before a run: is it a repo, where is its top, what is the base. */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { git } from './git.js';

export interface UserRepo {
  /** Absolute top level of the working tree. */
  topLevel: string;
  /** The `--base` ref as given (default HEAD) and the commit it names. */
  baseRef: string;
  baseCommit: string;
  /** Current branch name, or null on a detached HEAD. */
  currentBranch: string | null;
  /** `git status --porcelain` lines: uncommitted changes that the run will NOT include. */
  dirty: string[];
}

export type InspectResult = { ok: true; repo: UserRepo } | { ok: false; error: string };

export async function inspectUserRepo(repoPath: string, baseRef = 'HEAD'): Promise<InspectResult> {
  const abs = path.resolve(repoPath);
  const info = await stat(abs).catch(() => null);
  if (!info?.isDirectory()) return { ok: false, error: `not a git repository: ${repoPath} (no such folder)` };
  const top = await git(['rev-parse', '--show-toplevel'], { cwd: abs, userConfig: true });
  const topLevel = top.stdout.trim();
  if (!top.ok || topLevel === '') {
    const bare = await git(['rev-parse', '--is-bare-repository'], { cwd: abs, userConfig: true });
    if (bare.ok && bare.stdout.trim() === 'true') {
      return { ok: false, error: `not a git repository with a working tree: ${repoPath} (it is bare)` };
    }
    return { ok: false, error: `not a git repository: ${repoPath}` };
  }
  if (baseRef.startsWith('-') || baseRef.trim() === '')
    return { ok: false, error: `invalid base ref: "${baseRef}"` };
  const base = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${baseRef}^{commit}`], {
    cwd: topLevel,
    userConfig: true,
  });
  if (!base.ok) {
    const any = await git(['rev-list', '-n', '1', '--all'], { cwd: topLevel, userConfig: true });
    if (any.ok && any.stdout.trim() === '') {
      return { ok: false, error: `repository has no commits yet: ${topLevel} (commit something first)` };
    }
    return { ok: false, error: `unknown base ref "${baseRef}" in ${topLevel}` };
  }
  const branch = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], {
    cwd: topLevel,
    userConfig: true,
  });
  // --no-optional-locks: status must not refresh (write) the user's index.
  const status = await git(['--no-optional-locks', 'status', '--porcelain'], {
    cwd: topLevel,
    userConfig: true,
  });
  if (!status.ok) return { ok: false, error: `git status failed in ${topLevel}: ${status.stderr.trim()}` };
  return {
    ok: true,
    repo: {
      topLevel,
      baseRef,
      baseCommit: base.stdout.trim(),
      currentBranch: branch.ok ? branch.stdout.trim() : null,
      dirty: status.stdout.split('\n').filter((line) => line !== ''),
    },
  };
}
