/**
 * A population of simulated tasks whose true effects are known exactly (SIMULATED). Each repository
 * draws a difficulty shift, each task a solo success chance and, per arm, an effect added to it
 * (clipped to [0, 1]); every draw is uniform over a short list, so the population's true mean
 * difference between an arm and solo is an exact finite average, not an estimate. Coverage and power
 * tests draw a fresh suite per seed and check the reported interval against that number.
 */
import { createRng, type Rng } from '../stats/rng.js';
import type { SimArm, SimTask, SimTruth } from './sim-truth.js';

export interface SimPopulation {
  repos: number;
  tasksPerRepo: number;
  /** A task's solo chance of passing, before its repository's shift. */
  soloRates: readonly number[];
  /** A repository's shift of its tasks' chances (tasks of one repo are correlated through it). */
  repoShifts: readonly number[];
  /** Per non-solo arm: a task's effect on the chance, added to the solo chance. Missing arm: no effect. */
  effects: Readonly<Record<string, readonly number[]>>;
  /** Steps one agent needs, drawn per task. */
  steps?: readonly number[];
}

const clip = (p: number) => Math.min(1, Math.max(0, p));

function pick<T>(rng: Rng, list: readonly T[]): T {
  const value = list[rng.int(list.length)];
  if (value === undefined) throw new Error('sim population: an empty list of choices');
  return value;
}

/** The population mean of `value(solo chance, arm chance)` over every combination, exactly. */
function populationMean(
  pop: SimPopulation,
  arm: string,
  value: (solo: number, withArm: number) => number,
): number {
  const effects = pop.effects[arm] ?? [0];
  let total = 0;
  let count = 0;
  for (const rate of pop.soloRates)
    for (const shift of pop.repoShifts)
      for (const effect of effects) {
        total += value(clip(rate + shift), clip(rate + shift + effect));
        count++;
      }
  return total / count;
}

/** The exact population mean of (arm's chance − solo's chance), by enumerating every combination. */
export function trueDifference(pop: SimPopulation, arm: string): number {
  return populationMean(pop, arm, (solo, withArm) => withArm - solo);
}

/** The exact population pass chance of an arm (solo when it has no effects). */
export function truePassRate(pop: SimPopulation, arm: string): number {
  return populationMean(pop, arm, (_solo, withArm) => withArm);
}

/** A suite drawn from the population: `repos × tasksPerRepo` tasks with their true chances per arm. */
export function sampleSimTasks(pop: SimPopulation, arms: readonly SimArm[], seed: number): SimTask[] {
  const rng = createRng(seed);
  const tasks: SimTask[] = [];
  for (let r = 0; r < pop.repos; r++) {
    const shift = pick(rng, pop.repoShifts);
    for (let t = 0; t < pop.tasksPerRepo; t++) {
      const solo = pick(rng, pop.soloRates);
      const pass: Record<string, number> = {};
      for (const arm of arms) pass[arm.name] = clip(solo + shift + pick(rng, pop.effects[arm.name] ?? [0]));
      tasks.push({
        task: `sim-r${r}-t${t}`,
        repo: `sim-repo-${r}`,
        steps: pick(rng, pop.steps ?? [30]),
        pass,
      });
    }
  }
  return tasks;
}

/** A whole simulated eval's truth: a suite drawn from the population, run by `arms`. */
export function simTruthFrom(
  pop: SimPopulation,
  arms: readonly SimArm[],
  seed: number,
  extra: Partial<Pick<SimTruth, 'timeoutShare' | 'infraErrorRate'>> = {},
): SimTruth {
  return {
    label: 'sim',
    arms: [...arms],
    tasks: sampleSimTasks(pop, arms, seed),
    timeoutShare: extra.timeoutShare ?? 0.2,
    infraErrorRate: extra.infraErrorRate ?? 0,
  };
}
