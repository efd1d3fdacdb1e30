/**
 * Monte-Carlo makespan and cost per team size. Each sample redraws every task's duration from a
 * lognormal whose median is the observed duration (log-sd `sigma`, default 0.5: a task as likely to
 * take half again as long as two thirds as long), list-schedules the sample on p agents, and prices it
 * as the run's cost scaled by sampled work / observed work (tokens follow the work done, not the team
 * size; coordination overhead of a bigger team is not modelled). Seeded (core/random.ts): the same
 * seed gives the same numbers. The same draws are used for every p, so sizes compare on equal terms.
 */
import { seededRandom } from '../../core/random.js';
import type { Conflicts } from './conflicts.js';
import { work } from './graph-math.js';
import { listScheduler } from './list-schedule.js';
import type { PlanTask } from './task-graph.js';

export interface Quantiles {
  p10: number;
  p50: number;
  p90: number;
}

export interface MonteCarloResult {
  p: number;
  makespanMs: Quantiles;
  /** null when the recorded run has no cost. */
  costUsd: Quantiles | null;
}

export interface MonteCarloOptions {
  sizes: readonly number[];
  seed: number;
  samples: number;
  sigma?: number;
  conflicts?: Conflicts;
  costUsd: number | null;
}

/** The q-quantile (0..1) of sorted values, linear between neighbours. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] ?? 0;
  const b = sorted[hi] ?? a;
  return a + (b - a) * (at - lo);
}

export function quantiles(values: readonly number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  return { p10: quantile(sorted, 0.1), p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
}

/** A standard normal draw (Box-Muller) from a uniform source. */
function normal(random: () => number): number {
  const u = Math.max(random(), Number.MIN_VALUE);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export function monteCarlo(tasks: readonly PlanTask[], options: MonteCarloOptions): MonteCarloResult[] {
  const random = seededRandom(options.seed);
  const sigma = options.sigma ?? 0.5;
  const observedWork = work(tasks);
  const makespans = options.sizes.map(() => [] as number[]);
  const costs: number[] = [];
  for (let s = 0; s < options.samples; s++) {
    const durations = new Map(tasks.map((t) => [t.id, t.durationMs * Math.exp(sigma * normal(random))]));
    if (options.costUsd !== null)
      costs.push(
        observedWork > 0 ? (options.costUsd * work(tasks, durations)) / observedWork : options.costUsd,
      );
    const schedule = listScheduler(tasks, { durations, conflicts: options.conflicts });
    options.sizes.forEach((p, i) => {
      makespans[i]?.push(schedule(p).makespanMs);
    });
  }
  const cost = options.costUsd === null ? null : quantiles(costs);
  return options.sizes.map((p, i) => ({ p, makespanMs: quantiles(makespans[i] ?? []), costUsd: cost }));
}
