/** Mean, sample standard deviation and quantiles of plain number arrays (NaN-free inputs assumed). */

export function sum(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/** The mean; NaN for no values (callers decide what "no data" shows as). */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : sum(values) / values.length;
}

/** Sample standard deviation (n − 1 denominator); 0 for fewer than two values. */
export function sampleSd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) ** 2;
  return Math.sqrt(ss / (values.length - 1));
}

/**
 * The q-quantile of already sorted values by linear interpolation between order statistics
 * (Hyndman & Fan type 7, R's default); NaN for no values.
 */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const h = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(h);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] ?? a;
  return a + (h - lo) * (b - a);
}

export function quantile(values: readonly number[], q: number): number {
  return quantileSorted(
    [...values].sort((x, y) => x - y),
    q,
  );
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}
