/**
 * `colony plan`'s report for a task graph: work, span, and per team size the Brent bounds, the
 * critical-path-first list schedule (with and without the file-conflict constraint), Monte-Carlo
 * makespan and cost, and the recommended size (recommend.ts).
 */
import { conflictPairs, fileConflicts } from './conflicts.js';
import { brentBounds, criticalChain, span, work } from './graph-math.js';
import { listSchedule } from './list-schedule.js';
import { type MonteCarloResult, monteCarlo, type Quantiles } from './monte-carlo.js';
import { type Recommendation, recommendSize } from './recommend.js';
import type { GraphSource, TaskGraph } from './task-graph.js';

export interface PlanOptions {
  /** The team sizes planned (default: planSizes of the task count). */
  sizes: readonly number[];
  seed: number;
  samples: number;
  sigma: number;
}

/** What a caller gives planRun: the sizes are optional (the sizes that matter for the graph). */
export type PlanSettings = Omit<PlanOptions, 'sizes'> & { sizes?: readonly number[] };

export const DEFAULT_PLAN_OPTIONS: PlanSettings = {
  seed: 1,
  samples: 200,
  sigma: 0.5,
};

/** Every size up to this is planned; past it, the sizes double (a row per size would not be read). */
const EVERY_SIZE_UP_TO = 32;

/**
 * The team sizes that matter up to `width` agents (at most the task count: more agents than tasks
 * have nothing to do): every size from 1, up to 32; beyond, doubling, ending at `width` itself. A
 * ladder of powers of two alone missed sizes: 3 independent tasks were recommended 4 agents.
 */
export function planSizes(width: number): number[] {
  const top = Math.max(1, width);
  const sizes: number[] = [];
  for (let p = 1; p <= Math.min(top, EVERY_SIZE_UP_TO); p++) sizes.push(p);
  for (let p = EVERY_SIZE_UP_TO * 2; p < top; p *= 2) sizes.push(p);
  if (top > EVERY_SIZE_UP_TO) sizes.push(top);
  return sizes;
}

export interface PlanRow {
  p: number;
  brentLowerMs: number;
  brentUpperMs: number;
  /** The list schedule with overlapping tasks kept apart. */
  scheduleMs: number;
  /** The list schedule ignoring file overlap; scheduleMs − this is the conflict penalty. */
  scheduleNoConflictMs: number;
  conflictPenaltyMs: number;
  makespanMs: Quantiles;
  costUsd: Quantiles | null;
}

export interface PlanReport {
  runId: string;
  source: GraphSource;
  tasks: number;
  workMs: number;
  spanMs: number;
  /** work / span: the most agents that can ever be busy on average. */
  parallelism: number;
  workSteps: number;
  criticalPath: string[];
  /** The longest dependency chain counted in steps: the run's CriticalSteps (not the time-critical path's). */
  spanSteps: number;
  conflictPairs: number;
  measured: TaskGraph['measured'];
  options: PlanOptions;
  rows: PlanRow[];
  recommendation: Recommendation | null;
}

export function planRun(graph: TaskGraph, settings: PlanSettings = DEFAULT_PLAN_OPTIONS): PlanReport {
  const { tasks } = graph;
  const conflicts = fileConflicts(tasks);
  // The sizes that matter: up to the most tasks that can run at once (an unbounded team's peak).
  const width = () => listSchedule(tasks, Math.max(1, tasks.length), { conflicts }).peakAgents;
  const options: PlanOptions = { ...settings, sizes: settings.sizes ?? planSizes(width()) };
  const workMs = work(tasks);
  const spanMs = span(tasks);
  const chain = criticalChain(tasks);
  const stepsOf = new Map(tasks.map((t) => [t.id, t.steps]));
  const mc = monteCarlo(tasks, {
    sizes: options.sizes,
    seed: options.seed,
    samples: options.samples,
    sigma: options.sigma,
    conflicts,
    costUsd: graph.measured.costUsd,
  });
  const byP = new Map<number, MonteCarloResult>(mc.map((r) => [r.p, r]));
  const rows = options.sizes.map((p): PlanRow => {
    const bounds = brentBounds(workMs, spanMs, p);
    const scheduleMs = listSchedule(tasks, p, { conflicts }).makespanMs;
    const scheduleNoConflictMs = listSchedule(tasks, p).makespanMs;
    const sampled = byP.get(p);
    return {
      p,
      brentLowerMs: bounds.lower,
      brentUpperMs: bounds.upper,
      scheduleMs,
      scheduleNoConflictMs,
      conflictPenaltyMs: scheduleMs - scheduleNoConflictMs,
      makespanMs: sampled?.makespanMs ?? { p10: 0, p50: 0, p90: 0 },
      costUsd: sampled?.costUsd ?? null,
    };
  });
  return {
    runId: graph.runId,
    source: graph.source,
    tasks: tasks.length,
    workMs,
    spanMs,
    parallelism: spanMs > 0 ? workMs / spanMs : 0,
    workSteps: tasks.reduce((sum, t) => sum + t.steps, 0),
    criticalPath: chain,
    // The longest chain counted in steps (the run's CriticalSteps): the chain that is longest in time
    // may hold fewer steps, and which one that is depends on how fast each task ran.
    spanSteps: span(tasks, stepsOf),
    conflictPairs: conflictPairs(conflicts),
    measured: graph.measured,
    options,
    rows,
    recommendation: recommendSize(rows.map((r) => ({ p: r.p, p50Ms: r.makespanMs.p50 }))),
  };
}
