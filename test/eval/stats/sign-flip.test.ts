import { describe, expect, it } from 'vitest';
import { mcnemarExact } from '../../../src/eval/stats/mcnemar.js';
import { createRng } from '../../../src/eval/stats/rng.js';
import { signFlipTest } from '../../../src/eval/stats/sign-flip.js';

/** Every sign assignment by a plain bit loop (independent of the Gray-code walk under test). */
function bruteForce(d: number[]): number {
  const nz = d.filter((x) => x !== 0);
  const observed = Math.abs(nz.reduce((a, b) => a + b, 0));
  let hits = 0;
  for (let mask = 0; mask < 2 ** nz.length; mask++) {
    let s = 0;
    nz.forEach((x, i) => {
      s += mask & (1 << i) ? -x : x;
    });
    if (Math.abs(s) >= observed - 1e-9) hits++;
  }
  return hits / 2 ** nz.length;
}

describe('signFlipTest', () => {
  it('gives 2/32 for five tasks all favouring the arm, and 1 when nothing differs', () => {
    expect(signFlipTest([1, 1, 1, 1, 1, 0, 0])).toEqual({ p: 0.0625, method: 'exact', informative: 5 });
    expect(signFlipTest([0, 0, 0]).p).toBe(1);
    expect(signFlipTest([]).p).toBe(1);
  });

  it('equals exact McNemar for one trial per task (d in −1, 0, 1)', () => {
    for (const [b, c] of [
      [9, 1],
      [7, 3],
      [12, 2],
      [4, 4],
    ] as const) {
      const d = [...new Array(b).fill(1), ...new Array(c).fill(-1), 0, 0];
      expect(signFlipTest(d).p).toBeCloseTo(mcnemarExact(b, c), 12);
    }
  });

  it('matches brute-force enumeration on fractional differences', () => {
    const rng = createRng(5);
    for (let round = 0; round < 20; round++) {
      const d = Array.from({ length: 3 + rng.int(10) }, () => (rng.int(7) - 3) / 3);
      expect(signFlipTest(d).p).toBeCloseTo(bruteForce(d), 12);
    }
  });

  it('Monte Carlo agrees with the exact value and is reproducible for a seed', () => {
    const rng = createRng(9);
    const d = Array.from({ length: 14 }, () => (rng.int(5) - 1.6) / 2);
    const exact = signFlipTest(d).p;
    const mc = signFlipTest(d, { exactMax: 0, draws: 20_000, seed: 3 });
    expect(mc.method).toBe('monte-carlo');
    expect(Math.abs(mc.p - exact)).toBeLessThan(0.015);
    expect(signFlipTest(d, { exactMax: 0, draws: 20_000, seed: 3 }).p).toBe(mc.p);
    // Never 0, even when no draw reaches the observed sum.
    expect(signFlipTest(new Array(40).fill(1), { draws: 1000 }).p).toBeCloseTo(1 / 1001, 12);
  });
});
