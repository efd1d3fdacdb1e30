/**
 * Path safety for tools: every path an agent names must stay inside its worktree. Refused are `..`
 * escapes, absolute paths elsewhere, and symlinks (anywhere along the path) that lead outside.
 * New files in new folders are allowed: only the deepest *existing* ancestor is resolved.
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';

export type ResolvedPath = { ok: true; abs: string; rel: string } | { ok: false; error: string };

export function resolveInside(root: string, userPath: string): ResolvedPath {
  if (typeof userPath !== 'string') return { ok: false, error: 'path must be a string' };
  if (userPath.includes('\0')) return { ok: false, error: 'path contains a NUL byte' };
  let realRoot: string;
  try {
    realRoot = realpathSync.native(root); // native: one syscall instead of an lstat per path component
  } catch {
    return { ok: false, error: `worktree does not exist: ${root}` };
  }
  const rootAbs = path.resolve(root);
  const requested = userPath.trim() === '' ? '.' : userPath;
  // Absolute paths may name the worktree by its given path or by its real path.
  let abs = path.resolve(rootAbs, requested);
  if (path.isAbsolute(requested) && !isWithin(rootAbs, abs) && isWithin(realRoot, abs)) {
    abs = path.join(rootAbs, path.relative(realRoot, abs));
  }
  if (!isWithin(rootAbs, abs)) {
    return {
      ok: false,
      error: `path is outside the worktree: ${userPath} (use a path relative to the worktree)`,
    };
  }
  const real = realOfDeepestExisting(abs);
  if (!real.ok) return { ok: false, error: `${real.error}: ${userPath}` };
  if (!isWithin(realRoot, real.real)) {
    return { ok: false, error: `path leads outside the worktree through a symbolic link: ${userPath}` };
  }
  const rel = path.relative(rootAbs, abs).split(path.sep).join('/');
  return { ok: true, abs, rel: rel === '' ? '.' : rel };
}

function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  // A file named `..foo` is inside; only `..` itself or `../…` leave.
  return !(rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel));
}

/** Real path of `abs` or of its deepest existing ancestor (with the missing tail appended). */
function realOfDeepestExisting(abs: string): { ok: true; real: string } | { ok: false; error: string } {
  let current = abs;
  const tail: string[] = [];
  for (;;) {
    let exists = false;
    try {
      lstatSync(current);
      exists = true;
    } catch {
      exists = false;
    }
    if (exists) {
      try {
        return { ok: true, real: path.join(realpathSync.native(current), ...tail.reverse()) };
      } catch {
        // Exists but cannot be resolved: a dangling or looping symlink; writing through it could
        // create a file anywhere, so refuse.
        return { ok: false, error: 'path goes through a broken symbolic link' };
      }
    }
    const parent = path.dirname(current);
    if (parent === current) return { ok: false, error: 'no existing ancestor' };
    tail.push(path.basename(current));
    current = parent;
  }
}

/** `.git` (a file in a worktree, pointing into the hub) and anything below it. */
export function isGitInternal(rel: string): boolean {
  return rel === '.git' || rel.startsWith('.git/');
}
