/**
 * The recommended team size: the smallest p whose Monte-Carlo p50 makespan is within `tolerance`
 * (default 10%) of the best p50 over the sizes tried. Past it, more agents buy less than 10% time.
 */
export interface Recommendation {
  p: number;
  rule: string;
}

export function recommendSize(
  rows: ReadonlyArray<{ p: number; p50Ms: number }>,
  tolerance = 0.1,
): Recommendation | null {
  if (rows.length === 0) return null;
  const best = Math.min(...rows.map((r) => r.p50Ms));
  const sorted = [...rows].sort((a, b) => a.p - b.p);
  const pick = sorted.find((r) => r.p50Ms <= best * (1 + tolerance)) ?? sorted[sorted.length - 1];
  if (!pick) return null;
  return {
    p: pick.p,
    rule: `smallest team size whose p50 makespan is within ${Math.round(tolerance * 100)}% of the best p50`,
  };
}
