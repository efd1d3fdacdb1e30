/**
 * The one folder of the host a sandboxed command may change: its own checkout, bound at its real path
 * (read-write, or read-only for read-only profiles). A worktree's git metadata lives in the hub, so the
 * hub is bound read-only (git log, diff and status work; commits are Colony's, through merge_request
 * and sync), and the checkout's `.git` file is bound read-only over itself so that a command cannot
 * point Colony's own git commands at another repository.
 */
import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function checkoutMounts(checkout: string, writable: boolean): string[] {
  const dir = path.resolve(checkout);
  const args: string[] = [];
  args.push(writable ? '--bind' : '--ro-bind', dir, dir);
  const common = gitCommonDir(dir);
  if (common) args.push('--ro-bind', common, common);
  const dotGit = path.join(dir, '.git');
  if (writable && isFile(dotGit)) args.push('--ro-bind', dotGit, dotGit);
  args.push('--chdir', dir);
  return args;
}

/**
 * The repository a worktree belongs to (its `.git` file → gitdir → commondir), or null for a folder
 * that is not a linked worktree (a plain clone has its `.git` folder inside the checkout already).
 */
export function gitCommonDir(checkout: string): string | null {
  const dotGit = path.join(checkout, '.git');
  if (!isFile(dotGit)) return null;
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!match?.[1]) return null;
  const gitDir = path.resolve(checkout, match[1]);
  let common = gitDir;
  try {
    common = path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    // No commondir: the gitdir is the repository itself.
  }
  // Never bind a repository that contains the checkout (it would cover the checkout's own bind).
  return path.relative(common, checkout).startsWith('..') ? common : null;
}

function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}
