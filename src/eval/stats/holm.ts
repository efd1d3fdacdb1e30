/**
 * Holm–Bonferroni step-down adjustment (Holm 1979), R's p.adjust(p, "holm"): sorted ascending, the
 * i-th smallest p (1-based) is multiplied by m − i + 1, then made monotone and capped at 1. Rejecting
 * where the adjusted p < alpha keeps the chance of any false "significant" across all arms ≤ alpha.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(m).fill(1);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
