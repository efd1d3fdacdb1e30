/**
 * Path safety for tools: every path an agent names must stay inside its worktree, judged by where it
 * really leads. Refused are `..` escapes, absolute paths elsewhere, symlinks (anywhere along the
 * path) that lead outside, and anything that is or leads into `.git` — the checkout's own (a file the
 * sandbox and Colony's git read to find the agent's git directory) or a nested repository's folder
 * (whose config Colony's git would read). New files in new folders are allowed: only the deepest
 * *existing* ancestor is resolved.
 *
 * The tools then act on `real` (never on the path as named, whose links could be swapped after the
 * check): files are opened with O_NOFOLLOW, and where an open file really is is checked again on its
 * descriptor (tool/opened-path.ts). What is left is a parent folder swapped for a link between the check and
 * a path-based call (mkdir, rename): that needs a process of the agent's running at the same time,
 * and there is none (its tools run one at a time; its sandbox's processes end with each bash call).
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';

export type ResolvedPath =
  | {
      ok: true;
      /** The path as named, inside the worktree as given. */
      abs: string;
      /** `abs` relative to the worktree ('.' for the root), `/`-separated. */
      rel: string;
      /** Where it really leads: every link followed (a missing tail appended to its real ancestor). */
      real: string;
      /** The worktree's real path (`real` is inside it). */
      realRoot: string;
    }
  | { ok: false; error: string };

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
  const rel = toRel(rootAbs, abs);
  if (isGitInternal(rel)) return { ok: false, error: gitRefusal(userPath, null) };
  const real = realOfDeepestExisting(abs);
  if (!real.ok) return { ok: false, error: `${real.error}: ${userPath}` };
  const problem = realProblem(realRoot, real.real, userPath);
  if (problem) return { ok: false, error: problem };
  return { ok: true, abs, rel, real: real.real, realRoot };
}

/**
 * Why a real location must not be touched by a tool (outside the worktree, `.git` or a nested
 * repository's folder), or null. `shown`: the path as the agent named it, for the message.
 */
export function realProblem(realRoot: string, real: string, shown: string): string | null {
  if (!isWithin(realRoot, real)) return `path leads outside the worktree through a symbolic link: ${shown}`;
  const realRel = toRel(realRoot, real);
  if (isGitInternal(realRel)) return gitRefusal(shown, realRel);
  return null;
}

function gitRefusal(shown: string, realRel: string | null): string {
  const leads = realRel !== null && realRel !== shown ? ` (it leads to ${realRel})` : '';
  return (
    `refusing to touch git's own data: ${shown}${leads}. .git and the .git folders of nested ` +
    'repositories are not files of the project; use bash for git commands'
  );
}

function toRel(root: string, abs: string): string {
  const rel = path.relative(root, abs).split(path.sep).join('/');
  return rel === '' ? '.' : rel;
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

/**
 * `.git` (a file in a worktree, pointing at the agent's git directory) and anything below it, at
 * any depth: a nested repository's `sub/.git` is git's data too.
 */
export function isGitInternal(rel: string): boolean {
  return rel.split('/').includes('.git');
}
