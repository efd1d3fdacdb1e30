/** Coverage of each arm's pass rate (the paired difference: coverage.test.ts). */
import { describe, expect, it } from 'vitest';
import { truePassRate } from '../../../src/eval/sim/sim-population.js';
import { ARMS, covers, expectNominal, POPULATION, SEEDS } from './coverage-shared.js';
import { shareOfSeeds, simEval } from './sim-eval.js';

describe('coverage of the reported 95% intervals on the sim: truth model', () => {
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
});
