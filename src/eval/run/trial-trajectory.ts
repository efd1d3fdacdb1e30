/**
 * `colony eval run --trajectories`: each graded trial's run exported as its orchestrator trajectory
 * (report/trajectory, docs/trajectory.md) with r_perf = the trial's graded score (not an infra
 * error's), to
 * `OUT/trajectories/<arm>/<task>-<trial>.jsonl`. The events are read through the caller's store.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredEvent } from '../../core/events.js';
import { err, ok, type Result } from '../../lang/result.js';
import { toJsonl, trajectoryRecords } from '../../report/trajectory/index.js';
import type { TrialRecord } from '../trial-record.js';

export const TRAJECTORIES_DIR = 'trajectories';

/** Where trials' trajectories go, and how their runs' events are read. */
export interface TrajectoryExport {
  readEvents: (runId: string) => Promise<StoredEvent[]>;
}

/** A name as one path segment: anything but letters, digits, `.`, `_` and `-` becomes `_`. */
function segmentOf(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_');
  return safe === '.' || safe === '..' ? safe.replace(/\./g, '_') : safe;
}

export function trajectoryFile(out: string, record: Pick<TrialRecord, 'arm' | 'task' | 'trial'>): string {
  return join(
    out,
    TRAJECTORIES_DIR,
    segmentOf(record.arm),
    `${segmentOf(record.task)}-${record.trial}.jsonl`,
  );
}

/** Writes one trial's trajectory; a trial without a run (an infra error before it started) has none. */
export async function writeTrialTrajectory(
  out: string,
  record: TrialRecord,
  source: TrajectoryExport,
): Promise<Result<string | null>> {
  if (record.runId === null) return ok(null);
  const file = trajectoryFile(out, record);
  try {
    const events = await source.readEvents(record.runId);
    // An infra error's score is no grade: r_perf then comes from the run's own checks, if any.
    const graded = record.outcome !== 'infra_error';
    const text = toJsonl(trajectoryRecords(record.runId, events, graded ? { evalScore: record.score } : {}));
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, text);
    return ok(file);
  } catch (e) {
    return err(`trajectory of run ${record.runId}: ${(e as Error).message}`);
  }
}
