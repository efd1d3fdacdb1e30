/**
 * Cumulative share solved over wall-clock time (the Agensh paper's "passed 30% after 30 minutes"):
 * after t ms, the share of an arm's trials that had passed. A passing trial counts from its first
 * green verify when known, else from its end.
 */

export interface SolvedPoint {
  ms: number;
  share: number;
}

/** `solvedAt`: one entry per trial, the time it was solved, or null when it did not pass. */
export function solvedCurve(solvedAt: ReadonlyArray<number | null>): SolvedPoint[] {
  const total = solvedAt.length;
  if (total === 0) return [];
  const times = solvedAt.filter((t): t is number => t !== null).sort((a, b) => a - b);
  const points: SolvedPoint[] = [];
  times.forEach((ms, i) => {
    const share = (i + 1) / total;
    const last = points[points.length - 1];
    if (last && last.ms === ms) last.share = share;
    else points.push({ ms, share });
  });
  return points;
}
