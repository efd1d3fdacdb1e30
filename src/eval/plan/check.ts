/**
 * `colony plan --check RUN [--from OTHER]`: the plan's prediction for a recorded run against what the
 * run measured. The plan is made from OTHER's task graph (default: RUN's own) at RUN's team size
 * (Measured.teamSize), so a solo run can predict a team of the same goal and be scored.
 *
 * - Makespan: the Monte-Carlo p50 (the number `colony plan` shows) plus OTHER's overhead — its wall
 *   clock outside the tasks (first event to first task start, last task end to the last event: setup,
 *   final merges, verify), which the task graph does not contain and team size does not change.
 *   Measured: RUN's wall clock. `scheduleMs` (the replay) is the deterministic list schedule with the
 *   recorded durations plus the overhead: its error is the graph's alone. The p50 is higher where
 *   tasks run in parallel: the slowest of several noisy tasks is, at the median, slower than the
 *   slowest recorded one.
 * - Cost: the Monte-Carlo p50 of OTHER's cost (cost follows work, not team size). Measured: RUN's cost.
 * - `inBand`: the measured value lies within the predicted p10–p90 (an 80% band if the model is right).
 *
 * Checking a run against itself tests the scheduling model (dependencies, team size, greedy order)
 * with its own durations and overhead: the makespan error is what the graph misses (idle agents,
 * waits the log does not show as dependencies). With --from it is a forecast across runs.
 */
import { fileConflicts } from './conflicts.js';
import { listSchedule } from './list-schedule.js';
import { monteCarlo, type Quantiles } from './monte-carlo.js';
import type { PlanOptions } from './plan.js';
import type { GraphSource, TaskGraph } from './task-graph.js';

export interface CheckedNumber {
  /** The Monte-Carlo p50 (makespan: plus the overhead). */
  predicted: number;
  band: Quantiles;
  /** null when the run did not record it (cost of a run without prices). */
  measured: number | null;
  /** predicted − measured. */
  error: number | null;
  /** (predicted − measured) / measured; null when measured is null or 0. */
  relError: number | null;
  /** measured within band.p10 … band.p90. */
  inBand: boolean | null;
}

export interface CheckReport {
  runId: string;
  /** The run whose task graph made the prediction (runId itself without --from). */
  fromRunId: string;
  /** Both runs had the same goal (always true without --from). */
  sameGoal: boolean;
  source: GraphSource;
  tasks: number;
  /** The team size predicted at: the checked run's. */
  p: number;
  /** The prediction run's wall clock outside its tasks, added to every makespan. */
  overheadMs: number;
  /** The deterministic list schedule at p with the recorded durations, plus the overhead (the replay). */
  scheduleMs: number;
  /** (scheduleMs − measured) / measured: how well the graph replays the run, without the noise model. */
  scheduleRelError: number | null;
  makespanMs: CheckedNumber;
  costUsd: CheckedNumber | null;
  options: Pick<PlanOptions, 'seed' | 'samples' | 'sigma'>;
}

export type CheckResult = { ok: true; report: CheckReport } | { ok: false; error: string };

function checked(band: Quantiles, measured: number | null): CheckedNumber {
  const predicted = band.p50;
  const error = measured === null ? null : predicted - measured;
  return {
    predicted,
    band,
    measured,
    error,
    relError: measured === null || measured === 0 || error === null ? null : error / measured,
    inBand: measured === null ? null : measured >= band.p10 && measured <= band.p90,
  };
}

const shift = (q: Quantiles, by: number): Quantiles => ({
  p10: q.p10 + by,
  p50: q.p50 + by,
  p90: q.p90 + by,
});

export function checkPlan(
  run: TaskGraph,
  from: TaskGraph,
  options: Pick<PlanOptions, 'seed' | 'samples' | 'sigma'>,
): CheckResult {
  if (from.tasks.length === 0)
    return { ok: false, error: `run ${from.runId} has no tasks to plan from (no agent did any work)` };
  if (run.measured.wallClockMs === null)
    return { ok: false, error: `${run.runId} is not a recorded run: nothing measured to check against` };
  const p = run.measured.teamSize;
  const conflicts = fileConflicts(from.tasks);
  const { wallClockMs, activeMs } = from.measured;
  const overheadMs = wallClockMs !== null && activeMs !== null ? Math.max(0, wallClockMs - activeMs) : 0;
  const scheduleMs = listSchedule(from.tasks, p, { conflicts }).makespanMs + overheadMs;
  const measured = run.measured.wallClockMs;
  const [row] = monteCarlo(from.tasks, { ...options, sizes: [p], conflicts, costUsd: from.measured.costUsd });
  if (!row) return { ok: false, error: 'no Monte-Carlo result' };
  return {
    ok: true,
    report: {
      runId: run.runId,
      fromRunId: from.runId,
      sameGoal: run.goal === from.goal,
      source: from.source,
      tasks: from.tasks.length,
      p,
      overheadMs,
      scheduleMs,
      scheduleRelError: measured > 0 ? (scheduleMs - measured) / measured : null,
      makespanMs: checked(shift(row.makespanMs, overheadMs), measured),
      costUsd: row.costUsd ? checked(row.costUsd, run.measured.costUsd) : null,
      options,
    },
  };
}
