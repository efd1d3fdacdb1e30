/** The clustered bootstrap of any statistic: agrees with the mean's bootstrap, handles ratios' infinities. */
import { describe, expect, it } from 'vitest';
import { clusterBootstrapMean } from '../../../src/eval/stats/cluster-bootstrap.js';
import { clusterBootstrapStat } from '../../../src/eval/stats/cluster-bootstrap-stat.js';
import { mean, sum } from '../../../src/eval/stats/descriptive.js';

const units = Array.from({ length: 24 }, (_, i) => ({ cluster: `r${i % 6}`, value: (i * 7) % 10 }));

describe('clusterBootstrapStat', () => {
  it('with the mean as the statistic, draws exactly what clusterBootstrapMean draws', () => {
    const a = clusterBootstrapStat(units, mean, { seed: 3, resamples: 500 });
    const b = clusterBootstrapMean(units, { seed: 3, resamples: 500 });
    expect(a.estimate).toBeCloseTo(b.estimate, 12);
    expect(a.lo).toBeCloseTo(b.lo, 12);
    expect(a.hi).toBeCloseTo(b.hi, 12);
  });

  it('a ratio: the interval holds the estimate; resamples without a denominator make it unbounded', () => {
    const cost = units.map((u, i) => ({
      cluster: u.cluster,
      value: { cost: 1 + u.value, passes: i % 6 !== 5 ? 1 : 0 },
    }));
    const ratio = (vs: readonly { cost: number; passes: number }[]) =>
      sum(vs.map((v) => v.cost)) / sum(vs.map((v) => v.passes));
    const ci = clusterBootstrapStat(cost, ratio, { seed: 1, resamples: 1000 });
    expect(ci.estimate).toBeCloseTo(ratio(cost.map((c) => c.value)), 12);
    expect(ci.lo ?? Number.NaN).toBeLessThan(ci.estimate ?? 0);
    expect(ci.hi ?? Number.NaN).toBeGreaterThan(ci.estimate ?? 0);
    // One pass in one repository: most resamples have none, so the upper bound is unbounded.
    const rare = cost.map((c, i) => ({ ...c, value: { ...c.value, passes: i === 0 ? 1 : 0 } }));
    expect(clusterBootstrapStat(rare, ratio, { seed: 1, resamples: 1000 }).hi).toBeNull();
    expect(clusterBootstrapStat([], ratio)).toEqual({ estimate: null, lo: null, hi: null });
  });
});
