/**
 * A run's trajectory (`colony export RUN --format trajectory`): its lead's decisions and the episode
 * with its rewards, all from the run's event log through the one fold (view/run-state.ts) and the
 * summary's metrics (view/metrics.ts).
 */
import type { StoredEvent } from '../../core/events.js';
import { leadOf } from '../../view/critical-path.js';
import { toRunMetrics } from '../../view/metrics.js';
import { foldEvents } from '../../view/run-state.js';
import { leadDecisions } from './decisions.js';
import { episodeRecord } from './rewards.js';
import type { TrajectoryRecord } from './types.js';

export interface TrajectoryOptions {
  /** The eval's graded score of this run (0..1): r_perf then comes from it. */
  evalScore?: number;
}

/** The decision records in log order, then the episode record. */
export function trajectoryRecords(
  runId: string,
  events: readonly StoredEvent[],
  options: TrajectoryOptions = {},
): TrajectoryRecord[] {
  const state = foldEvents(events);
  const metrics = toRunMetrics(state);
  const lead = leadOf(state);
  const decisions = lead === null ? [] : leadDecisions(runId, lead, events, state, metrics.leadTurns);
  const episode = episodeRecord({
    runId,
    topology: state.topology,
    status: state.status,
    goal: state.goal,
    lead,
    decisions,
    metrics,
    events,
    ...(options.evalScore !== undefined ? { evalScore: options.evalScore } : {}),
  });
  return [...decisions, episode];
}

/** JSON Lines: one record a line, each line ending in a newline. */
export function toJsonl(records: readonly TrajectoryRecord[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}
