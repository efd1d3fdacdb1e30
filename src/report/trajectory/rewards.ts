/**
 * The per-episode rewards of the Kimi report (REFERENCE §1; docs/trajectory.md says where Colony
 * follows it and what it chose where the report leaves the formula open):
 * - r_parallel = 1 − CriticalSteps / totalSteps (0 when nothing ran): the share of the episode's
 *   model steps that ran beside the critical path; 0 under serial collapse.
 * - r_finish = finished delegations / delegations: tasks the lead assigned (done), agent steps of its
 *   programs (ok), and subagents it created but never gave a task (never finished); null without any.
 * - r_perf = the eval's graded score when given, else the last acceptance check (1 passed, 0 not),
 *   else the run's verify of main (1 / 0), else null.
 * CriticalSteps and totalSteps are the summary's (view/metrics.ts → view/critical-path.ts).
 */
import type { StoredEvent } from '../../core/events.js';
import type { RunMetrics } from '../../view/metrics.js';
import {
  type DecisionRecord,
  type Delegation,
  type EpisodeRecord,
  type PerfSource,
  TRAJECTORY_VERSION,
} from './types.js';

export type { Delegation };

/** What the lead's decisions delegated, and how much of it finished. */
export function delegationOf(decisions: readonly DecisionRecord[]): Delegation {
  const created = new Set(decisions.flatMap((d) => d.created.map((c) => c.name)));
  const tasks = decisions.flatMap((d) => d.parallel.tasks);
  const given = new Set(tasks.map((t) => t.agent));
  const steps = decisions.flatMap((d) => d.parallel.programs.flatMap((p) => p.steps));
  return {
    subagentsCreated: created.size,
    subagentsAbandoned: [...created].filter((name) => !given.has(name)).length,
    tasksAssigned: tasks.length,
    tasksDone: tasks.filter((t) => t.status === 'done').length,
    programSteps: steps.length,
    programStepsOk: steps.filter((s) => s.ok === true).length,
  };
}

export function rParallel(criticalSteps: number, totalSteps: number): number {
  return totalSteps > 0 ? Math.max(0, 1 - criticalSteps / totalSteps) : 0;
}

export function rFinish(d: Delegation): number | null {
  const all = d.tasksAssigned + d.programSteps + d.subagentsAbandoned;
  return all > 0 ? (d.tasksDone + d.programStepsOk) / all : null;
}

/** r_perf and its source: an eval score wins, then the acceptance check, then verify of main. */
export function rPerf(
  events: readonly StoredEvent[],
  evalScore: number | undefined,
): { value: number | null; source: PerfSource | null } {
  if (evalScore !== undefined) return { value: evalScore, source: 'eval' };
  let acceptance: boolean | null = null;
  let verify: boolean | null = null;
  for (const e of events) {
    if (e.kind === 'acceptance.finished') acceptance = (e as StoredEvent<'acceptance.finished'>).data.passed;
    // The run's own verify of main has no agent (the acceptance check's commands are `acceptance`'s).
    if (e.kind === 'verify.finished' && e.agent === null)
      verify = (e as StoredEvent<'verify.finished'>).data.passed;
  }
  if (acceptance !== null) return { value: acceptance ? 1 : 0, source: 'acceptance' };
  if (verify !== null) return { value: verify ? 1 : 0, source: 'verify' };
  return { value: null, source: null };
}

export function episodeRecord(input: {
  runId: string;
  topology: string | null;
  status: string;
  goal: string | null;
  lead: string | null;
  decisions: readonly DecisionRecord[];
  metrics: Pick<RunMetrics, 'criticalSteps' | 'totalSteps'>;
  events: readonly StoredEvent[];
  evalScore?: number;
}): EpisodeRecord {
  const delegation = delegationOf(input.decisions);
  const perf = rPerf(input.events, input.evalScore);
  return {
    v: TRAJECTORY_VERSION,
    type: 'episode',
    runId: input.runId,
    topology: input.topology,
    status: input.status,
    goal: input.goal,
    lead: input.lead,
    decisions: input.decisions.length,
    criticalSteps: input.metrics.criticalSteps,
    totalSteps: input.metrics.totalSteps,
    delegation,
    rewards: {
      rParallel: rParallel(input.metrics.criticalSteps, input.metrics.totalSteps),
      rFinish: rFinish(delegation),
      rPerf: perf.value,
    },
    rPerfSource: perf.source,
  };
}
