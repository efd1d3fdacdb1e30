/**
 * The hard requirement: on SIMULATED trials whose truth is known exactly, the reported 95%
 * intervals cover the true value about 95% of the time. Every seed draws a fresh suite (tasks,
 * repository shifts, per-task effects) from the population, fresh trials and a fresh resampling
 * seed, and runs the whole summary (summarizeEval) as `colony eval report` does. With 1,000 seeds the
 * standard error of a coverage near 95% is about 0.7 pp (1 pp for 500), so 91–99% is a wide band:
 * a failure means a real miscalibration. The two-stage bootstrap is conservative when repositories
 * hold several single-trial tasks (it counts the within-repository spread twice): ~98% there.
 */
import { describe, expect, it } from 'vitest';
import { trueDifference } from '../../../src/eval/sim/sim-population.js';
import { ARMS, covers, expectNominal, POPULATION, SEEDS } from './coverage-shared.js';
import { shareOfSeeds, simEval } from './sim-eval.js';

// The three-trial case of the paired difference is in coverage-trials.test.ts, each arm's pass rate in
// coverage-pass-rate.test.ts: one file each, so the three run in parallel.
describe('coverage of the reported 95% intervals on the sim: truth model', () => {
  it.each([
    ['1 trial, 8 repositories × 5 tasks', POPULATION, 1, 'mcnemar-exact', 'cluster-bootstrap'],
    [
      '1 trial, 5 × 2 tasks (few)',
      { ...POPULATION, repos: 5, tasksPerRepo: 2 },
      1,
      'mcnemar-exact',
      't-envelope',
    ],
  ] as const)('the paired difference arm − solo, %s', (name, pop, trials, test, method) => {
    const truth = trueDifference(pop, 'team-4');
    const coverage = shareOfSeeds(SEEDS, 1, (seed) => {
      const c = simEval(pop, ARMS, seed, trials).comparisons[0];
      expect(c?.test).toContain(test);
      expect(c?.ci?.method).toBe(method);
      return covers(c?.ci, truth);
    });
    expectNominal(`difference (truth ${(truth * 100).toFixed(2)} pp), ${name}`, coverage);
  });

  it('has teeth: a 50% interval covers far less often (the check can fail)', () => {
    const truth = trueDifference(POPULATION, 'team-4');
    const coverage = shareOfSeeds(200, 1, (seed) =>
      covers(
        simEval(POPULATION, ARMS, seed, 1, { confidence: 0.5, resamples: 500 }).comparisons[0]?.ci,
        truth,
      ),
    );
    expect(coverage).toBeLessThan(0.7);
  });
});
