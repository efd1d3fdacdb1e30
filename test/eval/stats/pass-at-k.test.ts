import { describe, expect, it } from 'vitest';
import { passAtK, passHatK, suitePassAtK } from '../../../src/eval/stats/pass-at-k.js';

/** Brute force over every k-subset of n trials with c passes: share with ≥1 pass, share all passing. */
function bySubsets(n: number, c: number, k: number): { any: number; all: number } {
  let subsets = 0;
  let any = 0;
  let all = 0;
  for (let mask = 0; mask < 2 ** n; mask++) {
    let bits = 0;
    let passes = 0;
    for (let i = 0; i < n; i++) {
      if (mask & (1 << i)) {
        bits++;
        if (i < c) passes++;
      }
    }
    if (bits !== k) continue;
    subsets++;
    if (passes > 0) any++;
    if (passes === k) all++;
  }
  return { any: any / subsets, all: all / subsets };
}

describe('pass@k and pass^k', () => {
  it('equal the share of k-subsets of the trials with a pass / with only passes', () => {
    for (const n of [1, 3, 6, 10])
      for (let c = 0; c <= n; c++)
        for (let k = 1; k <= n; k++) {
          const brute = bySubsets(n, c, k);
          expect(passAtK(n, c, k), `pass@${k} n=${n} c=${c}`).toBeCloseTo(brute.any, 12);
          expect(passHatK(n, c, k), `pass^${k} n=${n} c=${c}`).toBeCloseTo(brute.all, 12);
        }
  });

  it('reduce to the pass share for k = 1 and are undefined for k > n', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passHatK(10, 3, 1)).toBeCloseTo(0.3, 12);
    // 1 − C(7,2)/C(10,2) = 1 − 21/45; C(3,2)/C(10,2) = 3/45.
    expect(passAtK(10, 3, 2)).toBeCloseTo(24 / 45, 12);
    expect(passHatK(10, 3, 2)).toBeCloseTo(3 / 45, 12);
    expect(passAtK(2, 1, 3)).toBeNaN();
    expect(passHatK(2, 1, 3)).toBeNaN();
  });

  it('stays exact for many trials (no factorial overflow)', () => {
    expect(passAtK(500, 1, 100)).toBeCloseTo(100 / 500, 10);
    expect(passHatK(500, 499, 100)).toBeCloseTo(400 / 500, 10);
  });

  it('averages over the tasks that have at least k trials', () => {
    const rows = suitePassAtK(
      [
        { trials: 2, passes: 1 },
        { trials: 4, passes: 0 },
        { trials: 4, passes: 4 },
      ],
      [1, 3, 5],
    );
    expect(rows.map((r) => r.k)).toEqual([1, 3]);
    expect(rows[0]?.passAtK).toBeCloseTo((0.5 + 0 + 1) / 3, 12);
    expect(rows[1]?.tasks).toBe(2);
    expect(rows[1]?.passAtK).toBeCloseTo(0.5, 12);
    expect(rows[1]?.passHatK).toBeCloseTo(0.5, 12);
  });
});
