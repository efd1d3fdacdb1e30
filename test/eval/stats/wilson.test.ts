import { describe, expect, it } from 'vitest';
import { wilsonInterval } from '../../../src/eval/stats/wilson.js';

// Reference values: R's prop.test(x, n, correct = FALSE)$conf.int, and Newcombe (1998),
// "Two-sided confidence intervals for the single proportion", Stat. Med. 17, Table II, method 3.
const CASES: [number, number, number, number][] = [
  [0, 10, 0, 0.2775328],
  [5, 10, 0.2365931, 0.7634069],
  [10, 10, 0.7224672, 1],
  [1, 10, 0.0178762, 0.40415],
  [81, 263, 0.2553, 0.3662],
  [15, 148, 0.0624, 0.1605],
  [0, 20, 0, 0.1611],
  [1, 29, 0.0061, 0.1718],
];

describe('wilsonInterval', () => {
  it.each(CASES)('%i of %i matches the reference', (x, n, lo, hi) => {
    const ci = wilsonInterval(x, n);
    const digits = String(lo).length > 7 || String(hi).length > 7 ? 6 : 4;
    expect(ci.lo).toBeCloseTo(lo, digits);
    expect(ci.hi).toBeCloseTo(hi, digits);
  });

  it('is symmetric around 1/2 and narrows with n', () => {
    const a = wilsonInterval(3, 10);
    const b = wilsonInterval(7, 10);
    expect(a.lo).toBeCloseTo(1 - b.hi, 12);
    expect(wilsonInterval(30, 100).hi - wilsonInterval(30, 100).lo).toBeLessThan(a.hi - a.lo);
  });

  it('widens with the confidence level and says nothing for n = 0', () => {
    const c90 = wilsonInterval(5, 10, 0.9);
    const c99 = wilsonInterval(5, 10, 0.99);
    expect(c99.hi - c99.lo).toBeGreaterThan(c90.hi - c90.lo);
    expect(wilsonInterval(0, 0)).toEqual({ lo: 0, hi: 1 });
  });
});
