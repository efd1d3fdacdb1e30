/**
 * Free-form claims' answer to a conflict (issue 29): without a task board there is no list of free
 * work, so the loser of a claim is shown the repository paths nearest the one it asked for that are
 * free now: nobody holds them (nor a folder above them) and no PATCH entry covers them (work that
 * landed). Fresh at the moment of the conflict, where the agent's own view (its last look at the
 * shared context) is already stale — the cause of claim-conflict chains when many peers pick at once.
 * A path released without landing is free again, as a failed board task is.
 *
 * The paths are the run's base tree (the hub's, Colony's own repository: RunWorkspace.basePaths), so
 * files agents create later are not suggested; they are held by their makers anyway.
 */
import type { Scope } from './scope.js';

/** Candidates looked at on each side of the requested path before picking the nearest. */
const WINDOW = 2_000;

/**
 * Up to `n` of `paths` (sorted, as `sortPaths` sorts) nearest `near`: those sharing its deepest
 * folder first, then the closest in path order. `takenKeys`: scope keys (`a/b/`, '' = everything)
 * held now or patched. `avoid`: paths just suggested to other agents, placed after the others of
 * their folder (still suggested when nothing else is free).
 */
export function nearestFreePaths(
  paths: readonly string[],
  takenKeys: ReadonlySet<string>,
  near: Scope,
  n: number,
  avoid: ReadonlySet<string> = new Set(),
): string[] {
  if (near.kind !== 'path' || n <= 0 || paths.length === 0 || takenKeys.has('')) return [];
  const at = lowerBound(paths, near.key.slice(0, -1));
  const found: { path: string; shared: number; avoided: number; distance: number }[] = [];
  for (let d = 0; d <= WINDOW; d++) {
    for (const i of d === 0 ? [at] : [at - d, at + d]) {
      const path = paths[i];
      if (path === undefined || i < 0 || coveredBy(`${path}/`, takenKeys)) continue;
      const avoided = avoid.has(path) ? 1 : 0;
      found.push({ path, shared: sharedFolder(`${path}/`, near.key), avoided, distance: d });
    }
  }
  return found
    .sort(
      (a, b) =>
        b.shared - a.shared || a.avoided - b.avoided || a.distance - b.distance || (a.path < b.path ? -1 : 1),
    )
    .slice(0, n)
    .map((f) => f.path);
}

/**
 * The paths each agent was suggested in the last few seconds, per run: losers of claims made at the
 * same moment asked for neighbouring paths and were all shown the same nearest free ones, so they
 * lost again to each other. Suggestions to one agent are placed after the rest for the others while
 * that agent decides (about one model turn). In memory, per process: a hint, never a hold.
 */
export class RecentOffers {
  private readonly byRun = new Map<string, Map<string, { agent: string; until: number }>>();

  constructor(private readonly ttlMs: number = OFFER_TTL_MS) {}

  /** Paths offered to agents other than `agent` that have not expired. */
  othersOf(runId: string, agent: string, now: number = Date.now()): Set<string> {
    const offers = this.byRun.get(runId);
    const others = new Set<string>();
    if (!offers) return others;
    for (const [path, offer] of offers) {
      if (offer.until <= now) offers.delete(path);
      else if (offer.agent !== agent) others.add(path);
    }
    if (offers.size === 0) this.byRun.delete(runId);
    return others;
  }

  record(runId: string, agent: string, paths: readonly string[], now: number = Date.now()): void {
    if (paths.length === 0) return;
    let offers = this.byRun.get(runId);
    if (!offers) {
      offers = new Map();
      this.byRun.set(runId, offers);
    }
    for (const path of paths) offers.set(path, { agent, until: now + this.ttlMs });
  }
}

/** How long a suggestion is kept for the agent it was made to. */
export const OFFER_TTL_MS = 15_000;

/** The order `nearestFreePaths` expects (code-unit order, as the binary search compares). */
export function sortPaths(paths: readonly string[]): string[] {
  return [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Whether this path key, or one of its folders, is in `keys`. */
export function coveredBy(key: string, keys: ReadonlySet<string>): boolean {
  for (let i = key.indexOf('/'); i !== -1; i = key.indexOf('/', i + 1))
    if (keys.has(key.slice(0, i + 1))) return true;
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
