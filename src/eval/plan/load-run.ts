/**
 * A recorded run's task graph read from the store, or why not (errors as data): no such run, still
 * running (a plan of half a run is not the run's plan; `--check` needs its end), or no tasks.
 * Takes only the two reads it needs, so callers pass the CLI's store.
 */
import type { StoredEvent } from '../../core/events.js';
import { taskGraphOf } from './from-run.js';
import type { TaskGraph } from './task-graph.js';

export interface RunReader {
  runs: { getRun(runId: string): Promise<{ status: string } | null> };
  log: { read(runId: string): Promise<StoredEvent[]> };
}

export type LoadedGraph =
  | { ok: true; graph: TaskGraph }
  | { ok: false; reason: 'missing' | 'running' | 'empty'; error: string };

export async function loadRunGraph(
  store: RunReader,
  runId: string,
  require: { finished: boolean; tasks: boolean },
): Promise<LoadedGraph> {
  const run = await store.runs.getRun(runId);
  if (!run) return { ok: false, reason: 'missing', error: `no such run: ${runId} (see colony runs)` };
  if (require.finished && run.status === 'running')
    return {
      ok: false,
      reason: 'running',
      error: `run ${runId} is still running: check it when it has finished`,
    };
  const graph = taskGraphOf(runId, await store.log.read(runId));
  if (require.tasks && graph.tasks.length === 0)
    return {
      ok: false,
      reason: 'empty',
      error: `run ${runId} has no tasks: no agent did any work (status ${run.status})`,
    };
  return { ok: true, graph };
}
