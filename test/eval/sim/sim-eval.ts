/** Test helper: one simulated eval (a suite drawn from a population, its trials, the summary). */

import type { EvalOptions } from '../../../src/eval/report/options.js';
import { summarizeEval } from '../../../src/eval/report/summarize.js';
import type { EvalSummary } from '../../../src/eval/report/summary-types.js';
import { type SimPopulation, simTruthFrom } from '../../../src/eval/sim/sim-population.js';
import type { SimArm } from '../../../src/eval/sim/sim-truth.js';
import { simArms, simulateTrials } from '../../../src/eval/sim/simulate-trials.js';

export function simEval(
  pop: SimPopulation,
  arms: readonly SimArm[],
  seed: number,
  trials: number,
  options: Partial<EvalOptions> = {},
): EvalSummary {
  const truth = simTruthFrom(pop, arms, seed);
  // The trial draws get their own seed stream, apart from the suite's.
  const records = simulateTrials(truth, { trials, seed: seed + 1_000_000 });
  // The report's resampling seed varies too, so coverage is over everything random.
  return summarizeEval(records, simArms(truth), { seed: seed + 2_000_000, ...options });
}

/** Share of `count` seeds (from `first`) for which `hit` holds. */
export function shareOfSeeds(count: number, first: number, hit: (seed: number) => boolean): number {
  let hits = 0;
  for (let s = first; s < first + count; s++) if (hit(s)) hits++;
  return hits / count;
}
