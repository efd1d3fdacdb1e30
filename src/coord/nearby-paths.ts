/**
 * Free-form claims' answer to a conflict (issue 29): without a task board there is no list of free
 * work, so the loser of a claim is shown the repository paths nearest the one it asked for that no
 * claim of the run has touched yet (never claimed, not inside a claimed folder). Those are work nobody
 * has started, fresh at the moment of the conflict, where the agent's own view (its last look at the
 * shared context) is already stale — the cause of claim-conflict chains when many peers pick at once.
 *
 * The paths are the run's base tree (the hub's, Colony's own repository: RunWorkspace.basePaths), so
 * files agents create later are not suggested; they are held by their makers anyway.
 */
import type { Scope } from './scope.js';

/** Candidates looked at on each side of the requested path before picking the nearest. */
const WINDOW = 2_000;

/**
 * Up to `n` of `paths` (sorted, as `sortPaths` sorts) nearest `near`: those sharing its deepest
 * folder first, then the closest in path order. `claimedKeys`: scope keys (`a/b/`, '' = everything)
 * of every path claim of the run, held or ended.
 */
export function nearestUnclaimedPaths(
  paths: readonly string[],
  claimedKeys: ReadonlySet<string>,
  near: Scope,
  n: number,
): string[] {
  if (near.kind !== 'path' || n <= 0 || paths.length === 0 || claimedKeys.has('')) return [];
  const at = lowerBound(paths, near.key.slice(0, -1));
  const found: { path: string; shared: number; distance: number }[] = [];
  for (let d = 0; d <= WINDOW; d++) {
    for (const i of d === 0 ? [at] : [at - d, at + d]) {
      const path = paths[i];
      if (path === undefined || i < 0 || touched(`${path}/`, claimedKeys)) continue;
      found.push({ path, shared: sharedFolder(`${path}/`, near.key), distance: d });
    }
  }
  return found
    .sort((a, b) => b.shared - a.shared || a.distance - b.distance || (a.path < b.path ? -1 : 1))
    .slice(0, n)
    .map((f) => f.path);
}

/** The order `nearestUnclaimedPaths` expects (code-unit order, as the binary search compares). */
export function sortPaths(paths: readonly string[]): string[] {
  return [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Whether a claim covered this path's key: the key itself or one of its folders was claimed. */
function touched(key: string, claimed: ReadonlySet<string>): boolean {
  for (let i = key.indexOf('/'); i !== -1; i = key.indexOf('/', i + 1))
    if (claimed.has(key.slice(0, i + 1))) return true;
  return false;
}

function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Length of the deepest folder two keys share (keys end with '/'). */
function sharedFolder(a: string, b: string): number {
  let last = 0;
  for (let i = 0; i < a.length && i < b.length && a[i] === b[i]; i++) if (a[i] === '/') last = i + 1;
  return last;
}
