import { describe, expect, it } from 'vitest';
import { binomialHalfCdf, binomialHalfTwoSided } from '../../../src/eval/stats/binomial.js';
import { holmAdjust } from '../../../src/eval/stats/holm.js';
import { mcnemarExact } from '../../../src/eval/stats/mcnemar.js';

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

describe('binomial tails for p = 1/2', () => {
  it('matches the sum of binomial coefficients', () => {
    for (const n of [1, 5, 12, 30]) {
      for (let k = 0; k <= n; k++) {
        let direct = 0;
        for (let i = 0; i <= k; i++) direct += choose(n, i) / 2 ** n;
        expect(binomialHalfCdf(k, n)).toBeCloseTo(direct, 12);
      }
    }
  });

  it("matches R's binom.test two-sided p-values", () => {
    // binom.test(1, 10)$p.value = 0.02148438; binom.test(2, 12) = 0.03857422;
    // binom.test(7, 20) = 0.2631760; binom.test(40, 100) = 0.05688793.
    expect(binomialHalfTwoSided(1, 10)).toBeCloseTo(0.02148438, 7);
    expect(binomialHalfTwoSided(2, 12)).toBeCloseTo(0.03857422, 7);
    expect(binomialHalfTwoSided(7, 20)).toBeCloseTo(0.263176, 6);
    expect(binomialHalfTwoSided(40, 100)).toBeCloseTo(0.05688793, 7);
    expect(binomialHalfTwoSided(5, 10)).toBe(1);
    expect(binomialHalfTwoSided(0, 0)).toBe(1);
  });

  it('stays accurate for large samples (log-space terms)', () => {
    // scipy.stats.binomtest(100, 1000).pvalue = 1.3403435580012363e-161; (990, 2000) = 0.6709544855556541
    expect(binomialHalfTwoSided(100, 1000) / 1.3403435580012363e-161).toBeCloseTo(1, 9);
    expect(binomialHalfTwoSided(990, 2000)).toBeCloseTo(0.6709544855556541, 10);
  });
});

describe('mcnemarExact', () => {
  it('uses only the discordant tasks, symmetric in the arms', () => {
    // 9 tasks only the arm passed, 1 only solo: binom.test(9, 10) = 0.02148438.
    expect(mcnemarExact(9, 1)).toBeCloseTo(0.02148438, 7);
    expect(mcnemarExact(1, 9)).toBe(mcnemarExact(9, 1));
    // 5 of 5 discordant in one direction: 2 / 32.
    expect(mcnemarExact(5, 0)).toBeCloseTo(0.0625, 12);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
  });
});

describe('holmAdjust', () => {
  it('matches p.adjust(p, "holm") and keeps the input order', () => {
    // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
    const adjusted = holmAdjust([0.01, 0.04, 0.03, 0.005]);
    for (const [i, v] of [0.03, 0.06, 0.06, 0.02].entries()) expect(adjusted[i]).toBeCloseTo(v, 12);
  });

  it('is monotone in the sorted order, never below the raw p, capped at 1', () => {
    const raw = [0.2, 0.001, 0.5, 0.04, 0.9, 0.012];
    const adjusted = holmAdjust(raw);
    for (const [i, p] of raw.entries()) expect(adjusted[i]).toBeGreaterThanOrEqual(p);
    const order = raw.map((_, i) => i).sort((a, b) => (raw[a] ?? 0) - (raw[b] ?? 0));
    for (let r = 1; r < order.length; r++)
      expect(adjusted[order[r] ?? 0]).toBeGreaterThanOrEqual(adjusted[order[r - 1] ?? 0] ?? 0);
    expect(Math.max(...adjusted)).toBeLessThanOrEqual(1);
    expect(holmAdjust([0.03])).toEqual([0.03]);
    expect(holmAdjust([])).toEqual([]);
  });
});
