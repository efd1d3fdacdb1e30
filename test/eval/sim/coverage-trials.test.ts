/** Coverage of the paired difference with three trials per task (the rest: coverage.test.ts). */
import { describe, expect, it } from 'vitest';
import { trueDifference } from '../../../src/eval/sim/sim-population.js';
import { ARMS, covers, expectNominal, POPULATION, SEEDS } from './coverage-shared.js';
import { shareOfSeeds, simEval } from './sim-eval.js';

describe('coverage of the reported 95% intervals on the sim: truth model', () => {
  it.each([
    [
      '3 trials, 10 × 3 tasks',
      { ...POPULATION, repos: 10, tasksPerRepo: 3 },
      3,
      'sign-flip',
      'cluster-bootstrap',
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
});
