/**
 * Power and false alarms on SIMULATED trials with a planted effect (the sim: truth model): with
 * +30 pp on 40 tasks the "no difference" verdict must fail (Holm-adjusted p < 0.05) in most seeds;
 * arms with no effect must be called significant in at most ~7% of seeds, across the whole family of
 * arms (the tests are exact, so about 5% or less). The minimum detectable effect is checked too:
 * planting the MDE the report states should be detected about 80% of the time.
 *
 * Expected power, independently of this code: with one trial per task the design has ~22 discordant
 * tasks of which ~78% favour the arm; scipy's binomtest over 4,000 simulated suites rejects at 0.05 in
 * 76% (at 0.025, what Holm asks of the smaller of two p-values: 64%).
 */
import { describe, expect, it } from 'vitest';
import { type SimPopulation, trueDifference } from '../../../src/eval/sim/sim-population.js';
import { simArm } from '../../../src/eval/sim/sim-truth.js';
import { shareOfSeeds, simEval } from './sim-eval.js';

const SEEDS = 400;
const SOLO = simArm('solo', 1);

// Chances stay inside [0, 1] after +30 pp, so the planted effect is exactly the true difference.
const PLANTED: SimPopulation = {
  repos: 8,
  tasksPerRepo: 5,
  soloRates: [0.1, 0.2, 0.3, 0.4, 0.5],
  repoShifts: [-0.1, 0, 0.1],
  effects: { 'team-4': [0.3] },
};

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

describe('power and false alarms on the sim: truth model', () => {
  it('+30 pp on 40 tasks with one trial each is detected in most seeds', () => {
    expect(trueDifference(PLANTED, 'team-4')).toBeCloseTo(0.3, 12);
    const arms = [SOLO, simArm('team-4', 4)];
    let excludesZero = 0;
    const power = shareOfSeeds(SEEDS, 1, (seed) => {
      const c = simEval(PLANTED, arms, seed, 1, { resamples: 1000 }).comparisons[0];
      if (c?.ci && c.ci.lo > 0) excludesZero++;
      return c?.significant === true && (c.diff ?? 0) > 0;
    });
    console.log(
      `+30 pp, 1 trial: detected in ${percent(power)}, interval above 0 in ${percent(excludesZero / SEEDS)}`,
    );
    expect(power).toBeGreaterThanOrEqual(0.7);
    expect(excludesZero / SEEDS).toBeGreaterThanOrEqual(0.6);
  });

  it('+30 pp with three trials per task beside an arm without effect (Holm across both)', () => {
    const arms = [SOLO, simArm('team-4', 4), simArm('team-2', 2)];
    let detected = 0;
    let falseAlarms = 0;
    const seeds = SEEDS / 2;
    for (let seed = 1; seed <= seeds; seed++) {
      const s = simEval(PLANTED, arms, seed, 3, { resamples: 1000 });
      const planted = s.comparisons.find((c) => c.arm === 'team-4');
      if (planted?.significant && (planted.diff ?? 0) > 0) detected++;
      if (s.comparisons.find((c) => c.arm === 'team-2')?.significant) falseAlarms++;
      expect(planted?.test).toMatch(/^sign-flip/);
    }
    console.log(
      `+30 pp, 3 trials: detected in ${percent(detected / seeds)}; the arm without effect significant in ${percent(falseAlarms / seeds)}`,
    );
    expect(detected / seeds).toBeGreaterThanOrEqual(0.9);
    expect(falseAlarms / seeds).toBeLessThanOrEqual(0.07);
  });

  it('with no effect anywhere, any of three arms is called significant in ≤ 7% of seeds (Holm)', () => {
    const pop: SimPopulation = { ...PLANTED, effects: {} };
    const arms = [SOLO, simArm('a', 2), simArm('b', 4), simArm('c', 8)];
    let holm = 0;
    let unadjusted = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const s = simEval(pop, arms, seed, 1, { resamples: 200 });
      if (s.comparisons.some((c) => c.significant)) holm++;
      if (s.comparisons.some((c) => c.p < s.alpha)) unadjusted++;
    }
    console.log(
      `no effect, 3 arms: any significant in ${percent(holm / SEEDS)} with Holm, ${percent(unadjusted / SEEDS)} unadjusted`,
    );
    expect(holm / SEEDS).toBeLessThanOrEqual(0.07);
    expect(holm).toBeLessThanOrEqual(unadjusted);
  });

  it('an effect as large as the reported MDE is detected about 80% of the time', () => {
    const pop: SimPopulation = { ...PLANTED, soloRates: [0.3, 0.4, 0.5], effects: {} };
    const arms = [SOLO, simArm('team-4', 4)];
    // The MDE the report states on data without an effect (its mean over seeds).
    let sum = 0;
    for (let seed = 1; seed <= 100; seed++)
      sum += simEval(pop, arms, seed, 1, { resamples: 200 }).comparisons[0]?.mde ?? 0;
    const mde = sum / 100;
    const planted = { ...pop, effects: { 'team-4': [mde] } };
    const power = shareOfSeeds(SEEDS, 5001, (seed) => {
      const c = simEval(planted, arms, seed, 1, { resamples: 200 }).comparisons[0];
      return c?.significant === true && (c.diff ?? 0) > 0;
    });
    console.log(
      `MDE on 40 tasks: ±${(mde * 100).toFixed(1)} pp; power when it is planted: ${percent(power)}`,
    );
    // The normal approximation is somewhat optimistic for the exact, discrete McNemar test.
    expect(power).toBeGreaterThanOrEqual(0.65);
    expect(power).toBeLessThanOrEqual(0.95);
  });
});
