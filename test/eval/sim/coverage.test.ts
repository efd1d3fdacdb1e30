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
import { type SimPopulation, trueDifference, truePassRate } from '../../../src/eval/sim/sim-population.js';
import { simArm } from '../../../src/eval/sim/sim-truth.js';
import { shareOfSeeds, simEval } from './sim-eval.js';

const SEEDS = 1000;
const ARMS = [simArm('solo', 1), simArm('team-4', 4)];

// Heterogeneous effects (0 to +20 pp per task), repositories that shift their tasks' chances
// together (clustering), and chances near 0 and 1 where clipping bends the effect.
const POPULATION: SimPopulation = {
  repos: 8,
  tasksPerRepo: 5,
  soloRates: [0.1, 0.3, 0.5, 0.7, 0.9],
  repoShifts: [-0.2, 0, 0.2],
  effects: { 'team-4': [0, 0.1, 0.2] },
};

function covers(ci: { lo: number; hi: number } | null | undefined, truth: number): boolean {
  return ci !== null && ci !== undefined && ci.lo <= truth && truth <= ci.hi;
}

const measured: Record<string, number> = {};

function expectNominal(name: string, coverage: number): void {
  measured[name] = coverage;
  console.log(`coverage, ${name}: ${(coverage * 100).toFixed(1)}%`);
  expect(coverage, name).toBeGreaterThanOrEqual(0.91);
  expect(coverage, name).toBeLessThanOrEqual(0.99);
}

describe('coverage of the reported 95% intervals on the sim: truth model', () => {
  it.each([
    ['1 trial, 8 repositories × 5 tasks', POPULATION, 1, 'mcnemar-exact', 'cluster-bootstrap'],
    [
      '3 trials, 10 × 3 tasks',
      { ...POPULATION, repos: 10, tasksPerRepo: 3 },
      3,
      'sign-flip',
      'cluster-bootstrap',
    ],
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

  it.each([
    ['40 tasks in 8 repositories', POPULATION, 'cluster-bootstrap'],
    ['20 tasks in 4 repositories', { ...POPULATION, repos: 4 }, 'wilson-envelope'],
  ] as const)("each arm's pass rate, %s", (name, pop, method) => {
    for (const arm of ['solo', 'team-4']) {
      const truth = truePassRate(pop, arm);
      const coverage = shareOfSeeds(SEEDS / 2, 20_001, (seed) => {
        const a = simEval(pop, ARMS, seed, 1, { resamples: 1000 }).arms.find((x) => x.name === arm);
        expect(a?.interval?.method).toBe(method);
        return covers(a?.interval, truth);
      });
      expectNominal(`pass rate of ${arm} (truth ${(truth * 100).toFixed(2)}%), ${name}`, coverage);
    }
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
