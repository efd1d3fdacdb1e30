/**
 * The Wilson score interval for a binomial proportion (Wilson 1927; Agresti & Coull 1998): sound for
 * small n and at 0 or n successes, where the normal ("Wald") and percentile-bootstrap intervals
 * collapse to a point. R: prop.test(x, n, correct = FALSE)$conf.int.
 */
import { normalQuantile } from './normal.js';

export interface Interval {
  lo: number;
  hi: number;
}

/** `successes` may be fractional (a task's share of passing trials counted once per task). */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): Interval {
  if (n <= 0) return { lo: 0, hi: 1 };
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successes / n;
  const z2n = (z * z) / n;
  const center = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
  return { lo: Math.max(0, center - half), hi: Math.min(1, center + half) };
}
