import { describe, expect, it } from 'vitest';
import { costPerSuccess } from '../../../src/eval/stats/cost.js';
import { median, quantile, sampleSd } from '../../../src/eval/stats/descriptive.js';
import { minimumDetectableEffect } from '../../../src/eval/stats/mde.js';
import { paretoFrontier } from '../../../src/eval/stats/pareto.js';
import { createRng } from '../../../src/eval/stats/rng.js';
import { solvedCurve } from '../../../src/eval/stats/solved-curve.js';

describe('descriptive statistics', () => {
  it("quantiles match R's default (type 7)", () => {
    // R: quantile(c(1, 2, 3, 4), 0.5) = 2.5; quantile(1:10, 0.1) = 1.9; quantile(c(7, 1, 3), 0.25) = 2
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.1)).toBeCloseTo(1.9, 12);
    expect(quantile([7, 1, 3], 0.25)).toBe(2);
    expect(median([])).toBeNaN();
    // R: sd(c(2, 4, 4, 4, 5, 5, 7, 9)) = 2.13809
    expect(sampleSd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(2.13809, 5);
  });
});

describe('seeded random source', () => {
  it('repeats for a seed, differs between neighbouring seeds, and is uniform', () => {
    const a = createRng(1);
    const b = createRng(1);
    const c = createRng(2);
    const xs = Array.from({ length: 10_000 }, () => a.next());
    expect(Array.from({ length: 10_000 }, () => b.next())).toEqual(xs);
    expect(c.next()).not.toBe(xs[0]);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 8000; i++) counts[a.int(4)] = (counts[a.int(4)] ?? 0) + 1;
    for (const n of counts) expect(Math.abs(n - 2000)).toBeLessThan(200);
  });
});

describe('minimumDetectableEffect', () => {
  it('is (z_0.975 + z_0.8) · SD / √n', () => {
    const diffs = [1, 0, 0, -1, 1, 0, 1, 0, 0, 0, 1, -1, 0, 0, 1, 0, 0, 0, 0, 1];
    const { mde, sd, n, floored } = minimumDetectableEffect(diffs);
    expect(n).toBe(20);
    expect(sd).toBeCloseTo(sampleSd(diffs), 12);
    expect(mde).toBeCloseTo(((1.959963985 + 0.8416212336) * sampleSd(diffs)) / Math.sqrt(20), 8);
    expect(floored).toBe(false);
  });

  it('shrinks as 1/√n and grows with the power asked for', () => {
    const base = [1, -1, 0, 1, 0, 0, 1, -1];
    const four = [...base, ...base, ...base, ...base];
    const small = minimumDetectableEffect(base).mde ?? 0;
    const large = minimumDetectableEffect(four).mde ?? 0;
    expect(large / small).toBeCloseTo((sampleSd(four) / sampleSd(base)) * 0.5, 10);
    expect(minimumDetectableEffect(base, { power: 0.9 }).mde ?? 0).toBeGreaterThan(small);
  });

  it('floors the SD at one discordant task when none differ, and needs two tasks', () => {
    const same = minimumDetectableEffect(new Array(25).fill(0));
    expect(same.floored).toBe(true);
    expect(same.mde).toBeCloseTo((1.959963985 + 0.8416212336) / 25, 8);
    expect(minimumDetectableEffect([1]).mde).toBeNull();
  });
});

describe('paretoFrontier', () => {
  it('keeps the arms no other arm beats on both cost and pass rate, cheapest first', () => {
    const front = paretoFrontier([
      { name: 'team-16', cost: 5, value: 0.8 },
      { name: 'solo', cost: 1, value: 0.5 },
      { name: 'team-4', cost: 2, value: 0.7 },
      { name: 'orch-8', cost: 3, value: 0.6 }, // team-4 is cheaper and better
      { name: 'team-32', cost: 9, value: 0.8 }, // same rate as team-16, dearer
      { name: 'broken', cost: Number.NaN, value: 1 },
    ]);
    expect(front.map((p) => p.name)).toEqual(['solo', 'team-4', 'team-16']);
  });

  it('keeps identical points together', () => {
    expect(
      paretoFrontier([
        { name: 'a', cost: 1, value: 0.5 },
        { name: 'b', cost: 1, value: 0.5 },
      ]).length,
    ).toBe(2);
  });
});

describe('solvedCurve and costPerSuccess', () => {
  it('steps up by one trial share at each solve time', () => {
    expect(solvedCurve([3000, null, 1000, 3000, null])).toEqual([
      { ms: 1000, share: 0.2 },
      { ms: 3000, share: 0.6 },
    ]);
    expect(solvedCurve([])).toEqual([]);
  });

  it('divides all spend by the passes, null when nothing passed', () => {
    expect(costPerSuccess(12, 4)).toBe(3);
    expect(costPerSuccess(12, 0)).toBeNull();
  });
});
