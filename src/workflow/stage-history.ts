/**
 * Recorded weights of DAG nodes: the measured steps of every stage (1 + its children's longest
 * chain, as CriticalSteps counts them: view/critical-path.ts) in earlier runs of the same program
 * (the same stored JavaScript), by stage id. The newest runs win; only stages that finished well
 * count. A node the history does not know weighs 1 in its plan (critical-path.ts).
 */
import type { EventLog } from '../store/types.js';
import { workflowStageSteps } from '../view/critical-path.js';

/** What the history needs of the store: recent runs (newest first) and their logs. */
export interface RunHistory {
  listRuns(
    limit: number,
  ): Promise<Array<{ runId: string; topology: string; config: Record<string, unknown> }>>;
  log: EventLog;
}

/** Runs looked at (newest first), and matching runs read at most. */
const RUNS_LISTED = 50;
const RUNS_READ = 3;

export async function recordedStageWeights(
  history: RunHistory,
  current: { runId: string; js: string },
): Promise<Map<string, number>> {
  const weights = new Map<string, number>();
  const same = (await history.listRuns(RUNS_LISTED)).filter(
    (run) =>
      run.runId !== current.runId &&
      run.topology === 'workflow' &&
      (run.config.workflow as { js?: unknown } | undefined)?.js === current.js,
  );
  for (const run of same.slice(0, RUNS_READ)) {
    const events = await history.log.read(run.runId);
    const finished = new Set(
      events.flatMap((e) => (e.kind === 'stage.finished' && e.data.ok ? [e.data.stage] : [])),
    );
    for (const [stage, steps] of workflowStageSteps(events))
      if (finished.has(stage) && !weights.has(stage)) weights.set(stage, steps);
  }
  return weights;
}
