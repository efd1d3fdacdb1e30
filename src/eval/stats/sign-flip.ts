/**
 * The paired sign-flip permutation test (Fisher 1935; Good 2005): under "no difference", each task's
 * arm and solo results are exchangeable, so the sign of its difference is a fair coin. The p-value
 * is the share of sign assignments whose |Σ d| is at least the observed one (two-sided). Tasks with
 * d = 0 cannot change the sum and are dropped. Exact (all 2^n assignments, Gray-code order) when at
 * most `exactMax` tasks differ; otherwise Monte Carlo with p = (1 + hits) / (1 + draws) (Phipson &
 * Smyth 2010), which never reports 0.
 */
import { createRng } from './rng.js';

export interface SignFlipResult {
  p: number;
  method: 'exact' | 'monte-carlo';
  /** Tasks with a non-zero difference. */
  informative: number;
}

export interface SignFlipOptions {
  exactMax?: number;
  draws?: number;
  seed?: number;
}

// Sums of ±d are compared with a small tolerance so ties from rounding (1/3 + 1/3 …) count as ties.
const EPS = 1e-9;

export function signFlipTest(diffs: readonly number[], options: SignFlipOptions = {}): SignFlipResult {
  const d = diffs.filter((x) => x !== 0);
  const n = d.length;
  if (n === 0) return { p: 1, method: 'exact', informative: 0 };
  const observed = Math.abs(d.reduce((a, b) => a + b, 0));
  // Capped at 2^24 assignments: beyond that Monte Carlo is as good and far faster.
  if (n <= Math.min(options.exactMax ?? 16, 24)) {
    // Gray code: each step flips one sign, so the sum updates in O(1).
    let s = d.reduce((a, b) => a + b, 0);
    const signs = new Array<number>(n).fill(1);
    let hits = 0;
    const total = 2 ** n;
    for (let g = 0; g < total; g++) {
      if (g > 0) {
        const bit = Math.log2(g & -g);
        const value = d[bit] ?? 0;
        s -= 2 * (signs[bit] ?? 1) * value;
        signs[bit] = -(signs[bit] ?? 1);
      }
      if (Math.abs(s) >= observed - EPS) hits++;
    }
    return { p: hits / total, method: 'exact', informative: n };
  }
  const draws = options.draws ?? 10_000;
  const rng = createRng(options.seed ?? 1);
  let hits = 0;
  for (let b = 0; b < draws; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += rng.next() < 0.5 ? -(d[i] ?? 0) : (d[i] ?? 0);
    if (Math.abs(s) >= observed - EPS) hits++;
  }
  return { p: (1 + hits) / (1 + draws), method: 'monte-carlo', informative: n };
}
