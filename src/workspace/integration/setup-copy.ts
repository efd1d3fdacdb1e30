/**
 * A pristine copy of what `--setup` made in the integration worktree. Taken right after setup ran on
 * the base commit's tree, kept in a folder of the run's own (outside every checkout, and never bound
 * into a sandbox, so no candidate's code can change it), and copied back before each candidate's
 * verify, after `git clean -ffdx` removed everything the previous candidate left.
 *
 * Real copies (`cp -a`, reflinks where the file system has them), never hard links: a candidate that
 * writes into a linked file would change it for every later candidate. Copying back beats running
 * setup again per candidate (docs/integration.md has the measure), and setup on a candidate's tree
 * would run the candidate's code with no network.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { err, ok, type Result } from '../../lang/result.js';
import { git, gitError } from '../git/git.js';

const execFileAsync = promisify(execFile);
/** Paths per cp process (its argument list stays far below the system's limit). */
const PATHS_PER_CP = 512;

export interface SetupCopy {
  /** The run's folder holding the copy. */
  dir: string;
  /** What setup made, relative to the worktree: untracked and ignored files, a new folder as one path. */
  paths: string[];
}

/** Copies what setup left untracked or ignored in `worktree` (a clean checkout, then setup) into `dir`. */
export async function captureSetupOutput(worktree: string, dir: string): Promise<Result<SetupCopy>> {
  // No --exclude-standard: ignored files are listed too.
  const listed = await git(['ls-files', '-z', '--others', '--directory'], { cwd: worktree });
  if (!listed.ok) return err(`could not list what setup made: ${gitError(listed)}`);
  const paths = listed.stdout
    .split('\0')
    .filter((p) => p !== '')
    .map((p) => p.replace(/\/+$/, ''));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const copied = await copyPaths(worktree, paths, dir);
  return copied.ok ? ok({ dir, paths }) : copied;
}

/**
 * Copies the setup copy into `worktree`, which holds a candidate's tracked files and nothing else.
 * A path whose place the candidate's tree already takes (a tracked file or folder there, or a link
 * on the way, which cp would follow out of the worktree) is left out: the candidate's files win.
 */
export async function restoreSetupOutput(copy: SetupCopy, worktree: string): Promise<Result<void>> {
  const free: string[] = [];
  for (const p of copy.paths) if (await isFree(worktree, p)) free.push(p);
  return copyPaths(copy.dir, free, worktree);
}

/** Nothing at `relative` under `root`, and every folder on the way that exists is a real folder. */
async function isFree(root: string, relative: string): Promise<boolean> {
  const parts = relative.split('/');
  let at = root;
  for (const [i, part] of parts.entries()) {
    at = path.join(at, part);
    const stat = await lstat(at).catch(() => null);
    if (stat === null) return true;
    if (i === parts.length - 1 || !stat.isDirectory()) return false;
  }
  return false;
}

async function copyPaths(from: string, paths: string[], to: string): Promise<Result<void>> {
  for (let i = 0; i < paths.length; i += PATHS_PER_CP) {
    const chunk = paths.slice(i, i + PATHS_PER_CP);
    try {
      await execFileAsync('cp', ['-a', '--reflink=auto', '--parents', '-t', to, '--', ...chunk], {
        cwd: from,
      });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim();
      return err(`could not copy what setup made into ${to}: ${stderr || String(error)}`);
    }
  }
  return ok(undefined);
}
