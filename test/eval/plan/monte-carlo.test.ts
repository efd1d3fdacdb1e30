import { describe, expect, it } from 'vitest';
import { monteCarlo, quantile, recommendSize } from '../../../src/eval/plan/index.js';
import { forkJoin, independent } from './dags.js';

const options = { sizes: [1, 2, 4], seed: 7, samples: 300, costUsd: 2 };

describe('Monte-Carlo makespan and cost', () => {
  it('is deterministic by seed and changes with it', () => {
    const a = monteCarlo(forkJoin, options);
    expect(monteCarlo(forkJoin, options)).toEqual(a);
    expect(monteCarlo(forkJoin, { ...options, seed: 8 })).not.toEqual(a);
  });

  it('p10 ≤ p50 ≤ p90, and more agents are never slower at the median here', () => {
    const rows = monteCarlo(independent, options);
    for (const r of rows) {
      expect(r.makespanMs.p10).toBeLessThanOrEqual(r.makespanMs.p50);
      expect(r.makespanMs.p50).toBeLessThanOrEqual(r.makespanMs.p90);
      expect(r.costUsd?.p10 ?? 0).toBeLessThanOrEqual(r.costUsd?.p50 ?? 0);
      expect(r.costUsd?.p50 ?? 0).toBeLessThanOrEqual(r.costUsd?.p90 ?? 0);
    }
    const [one, two, four] = rows.map((r) => r.makespanMs.p50);
    expect(two).toBeLessThan(one ?? 0);
    expect(four).toBeLessThanOrEqual(two ?? 0);
  });

  it('centres on the observed durations (lognormal median = observed)', () => {
    const [one] = monteCarlo(independent, { ...options, sizes: [1], samples: 2000 });
    // One agent: makespan = work, a sum of four lognormals with medians summing to 10 s.
    expect(one?.makespanMs.p50).toBeGreaterThan(9000);
    expect(one?.makespanMs.p50).toBeLessThan(12_500);
    expect(one?.costUsd?.p50).toBeGreaterThan(1.7);
    expect(one?.costUsd?.p50).toBeLessThan(2.6);
  });

  it('no cost recorded → no cost quantiles', () => {
    expect(monteCarlo(forkJoin, { ...options, costUsd: null })[0]?.costUsd).toBeNull();
  });

  it('quantile interpolates', () => {
    expect(quantile([0, 10], 0.5)).toBe(5);
    expect(quantile([1, 2, 3, 4, 5], 0.9)).toBeCloseTo(4.6);
  });
});

describe('recommended size', () => {
  it('is the smallest p within 10% of the best p50', () => {
    const rows = [
      { p: 1, p50Ms: 10_000 },
      { p: 2, p50Ms: 5400 },
      { p: 4, p50Ms: 5000 },
      { p: 8, p50Ms: 5000 },
    ];
    expect(recommendSize(rows)?.p).toBe(2);
    expect(recommendSize(rows, 0.05)?.p).toBe(4);
    expect(recommendSize([])).toBeNull();
  });
});
