import { describe, expect, it } from 'vitest';
import { clusterBootstrapMean } from '../../../src/eval/stats/cluster-bootstrap.js';
import { mean, sampleSd } from '../../../src/eval/stats/descriptive.js';
import { createRng } from '../../../src/eval/stats/rng.js';

describe('clusterBootstrapMean', () => {
  it('is reproducible for a seed and changes with it', () => {
    const rng = createRng(1);
    const units = Array.from({ length: 60 }, (_, i) => ({ cluster: `r${i % 6}`, value: rng.next() }));
    const a = clusterBootstrapMean(units, { seed: 7 });
    expect(clusterBootstrapMean(units, { seed: 7 })).toEqual(a);
    expect(clusterBootstrapMean(units, { seed: 8 }).lo).not.toBe(a.lo);
    expect(a.estimate).toBeCloseTo(mean(units.map((u) => u.value)), 12);
    expect(a.lo).toBeLessThan(a.estimate);
    expect(a.hi).toBeGreaterThan(a.estimate);
  });

  it('with one repository is the ordinary bootstrap: about mean ± 1.96 SE for many tasks', () => {
    const rng = createRng(2);
    const values = Array.from({ length: 400 }, () => (rng.next() < 0.4 ? 1 : 0));
    const ci = clusterBootstrapMean(
      values.map((value) => ({ cluster: 'one', value })),
      { resamples: 4000 },
    );
    const se = sampleSd(values) / Math.sqrt(values.length);
    expect(ci.lo).toBeCloseTo(mean(values) - 1.96 * se, 2);
    expect(ci.hi).toBeCloseTo(mean(values) + 1.96 * se, 2);
  });

  it('is wider when tasks of a repository move together than when every task is its own cluster', () => {
    // Five repositories, each all-pass or all-fail: 50 tasks but only 5 independent facts.
    const units = Array.from({ length: 50 }, (_, i) => ({ cluster: `r${i % 5}`, value: i % 5 < 2 ? 1 : 0 }));
    const clustered = clusterBootstrapMean(units);
    const naive = clusterBootstrapMean(units.map((u, i) => ({ cluster: `t${i}`, value: u.value })));
    expect(clustered.hi - clustered.lo).toBeGreaterThan(2 * (naive.hi - naive.lo));
    expect(clustered.clusters).toBe(5);
  });

  it('returns NaN bounds for no data and a point for constant data', () => {
    expect(clusterBootstrapMean([]).lo).toBeNaN();
    const constant = clusterBootstrapMean([
      { cluster: 'a', value: 1 },
      { cluster: 'b', value: 1 },
    ]);
    expect([constant.lo, constant.hi]).toEqual([1, 1]);
  });
});
