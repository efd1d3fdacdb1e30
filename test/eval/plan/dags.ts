import type { PlanTask } from '../../../src/eval/plan/index.js';

/** A task with a duration, deps and files (steps = duration / 1000). */
export const task = (
  id: string,
  durationMs: number,
  deps: string[] = [],
  files: string[] = [],
): PlanTask => ({
  id,
  agent: id,
  durationMs,
  steps: durationMs / 1000,
  deps,
  files,
});

/** a → b → c: 1 s, 2 s, 3 s. */
export const chain = [task('a', 1000), task('b', 2000, ['a']), task('c', 3000, ['b'])];

/** fork-join: s (1 s) → x (4 s), y (2 s), z (2 s) → j (1 s). */
export const forkJoin = [
  task('s', 1000),
  task('x', 4000, ['s']),
  task('y', 2000, ['s']),
  task('z', 2000, ['s']),
  task('j', 1000, ['x', 'y', 'z']),
];

/** Four independent tasks: 3, 3, 2, 2 s (optimum on 2 agents: 5 s). */
export const independent = [task('p', 3000), task('q', 3000), task('r', 2000), task('t', 2000)];
