/**
 * The minimum detectable effect (MDE) of a paired comparison: the smallest true difference in pass
 * rate that this many tasks would detect with the given power by a two-sided test at level alpha,
 * by the normal approximation for a paired mean (e.g. Cohen 1988, ch. 2; Chow, Shao & Wang 2008, §3.1):
 *
 *   MDE = (z_{1−α/2} + z_{power}) · s_d / √n
 *
 * where s_d is the sample standard deviation of the per-task differences and n the paired tasks.
 * With one trial per task, d ∈ {−1, 0, 1} and s_d² ≈ the share of discordant tasks (McNemar's
 * setting, Connor 1987). When no task differs, s_d is floored at that of one discordant task
 * (s_d² = 1/n) instead of reporting a meaningless 0. The approximation ignores the discreteness of
 * the exact tests and the t correction, so for small n the real MDE is somewhat larger.
 */
import { sampleSd } from './descriptive.js';
import { normalQuantile } from './normal.js';

export interface MdeResult {
  /** In pass-rate units (0.1 = 10 percentage points); null with fewer than two tasks. */
  mde: number | null;
  sd: number;
  n: number;
  /** True when s_d was floored because no task differed. */
  floored: boolean;
}

export function minimumDetectableEffect(
  diffs: readonly number[],
  options: { alpha?: number; power?: number } = {},
): MdeResult {
  const n = diffs.length;
  const observed = sampleSd(diffs);
  if (n < 2) return { mde: null, sd: observed, n, floored: false };
  const floored = diffs.every((d) => d === 0);
  const sd = floored ? Math.sqrt(1 / n) : observed;
  const z = normalQuantile(1 - (options.alpha ?? 0.05) / 2) + normalQuantile(options.power ?? 0.8);
  return { mde: (z * sd) / Math.sqrt(n), sd, n, floored };
}
