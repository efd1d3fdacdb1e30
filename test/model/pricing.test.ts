import { describe, expect, it } from 'vitest';
import { addUsage, costOf } from '../../src/model/pricing.js';
import type { Usage } from '../../src/model/types.js';

const prices = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 };

describe('costOf', () => {
  it('prices each token class per million', () => {
    const usage: Usage = {
      input: 1_000_000,
      cachedInput: 2_000_000,
      cacheWrite: 100_000,
      output: 10_000,
      reasoning: 5_000,
    };
    // 3 + 0.6 + 0.375 + 0.15; reasoning is inside output and adds nothing.
    expect(costOf(usage, prices)).toBeCloseTo(4.125, 10);
  });
  it('treats unreported cache fields as zero', () => {
    const usage: Usage = {
      input: 1000,
      cachedInput: undefined,
      cacheWrite: undefined,
      output: 100,
      reasoning: undefined,
    };
    expect(costOf(usage, prices)).toBeCloseTo((3000 + 1500) / 1e6, 12);
  });
  it('is null for an unpriced model', () => {
    expect(costOf({ input: 1, cachedInput: 0, cacheWrite: 0, output: 1, reasoning: 0 }, null)).toBeNull();
  });
});

describe('addUsage', () => {
  it('adds fields and keeps undefined only when both sides are undefined', () => {
    const a: Usage = { input: 1, cachedInput: undefined, cacheWrite: 2, output: 3, reasoning: undefined };
    const b: Usage = { input: 10, cachedInput: 5, cacheWrite: undefined, output: 30, reasoning: undefined };
    expect(addUsage(a, b)).toEqual({
      input: 11,
      cachedInput: 5,
      cacheWrite: 2,
      output: 33,
      reasoning: undefined,
    });
  });
});
