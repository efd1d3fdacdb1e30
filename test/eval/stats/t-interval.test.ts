import { describe, expect, it } from 'vitest';
import { tIntervalMean, tQuantile } from '../../../src/eval/stats/t-interval.js';

describe('tQuantile', () => {
  // scipy.stats.t.ppf(0.975, df) (R: qt(0.975, df)).
  it.each([
    [1, 12.706204736174694, 1e-9],
    [2, 4.302652729749462, 1e-9],
    [3, 3.1824463052837078, 5e-3],
    [4, 2.7764451051977934, 1e-3],
    [9, 2.262157162798205, 1e-4],
    [29, 2.045229642132703, 1e-6],
    [100, 1.9839715185235518, 1e-7],
  ])('qt(0.975, %i) = %f', (df, t, tolerance) => {
    expect(Math.abs(tQuantile(0.975, df) - t)).toBeLessThan(tolerance);
  });

  it('approaches the normal quantile and is antisymmetric', () => {
    expect(tQuantile(0.975, 100_000)).toBeCloseTo(1.959963985, 4);
    expect(tQuantile(0.1, 7)).toBeCloseTo(-tQuantile(0.9, 7), 12);
  });
});

describe('tIntervalMean', () => {
  it("matches R's t.test(x)$conf.int", () => {
    // t.test(c(1, 2, 3, 4, 5))$conf.int = 1.036757 4.963243 (4 df: the quantile is within 0.001)
    const a = tIntervalMean([1, 2, 3, 4, 5]);
    expect(Math.abs((a?.lo ?? 0) - 1.0367568385224428)).toBeLessThan(1e-3);
    expect(Math.abs((a?.hi ?? 0) - 4.963243161477557)).toBeLessThan(1e-3);
    // scipy.stats.t.interval(0.95, 7, mean, sem) of these per-task differences
    const b = tIntervalMean([0.5, -0.25, 1, 0, 0.75, 0.25, -0.5, 1]);
    expect(b?.lo).toBeCloseTo(-0.12940571430610204, 4);
    expect(b?.hi).toBeCloseTo(0.816905714306102, 4);
    expect(tIntervalMean([1])).toBeNull();
  });
});
