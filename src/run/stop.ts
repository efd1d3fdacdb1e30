/**
 * `colony stop RUN` and the dashboard's stop button. A run executed by a live process is asked to
 * stop (a `run.stop_requested` event; that process ends it as `stopped`, keeping its result branch).
 * A run nobody executes (its process died) is finished here as `stopped`, so it is not left running.
 */
import type { StoredEvent } from '../core/events.js';
import type { Store } from '../store/index.js';

export type StopResult =
  | { ok: true; mode: 'requested' | 'finished' | 'already_finished'; status: string }
  | { ok: false; error: string };

export async function requestRunStop(
  store: Store,
  runId: string,
  by: string,
  reason = '',
): Promise<StopResult> {
  const run = await store.runs.getRun(runId);
  if (!run) return { ok: false, error: `no run ${runId} (see colony runs)` };
  if (run.status !== 'running') return { ok: true, mode: 'already_finished', status: run.status };
  await store.log.append({ runId, agent: null, kind: 'run.stop_requested', data: { by, reason } });
  await store.log.flush();
  const lock = await store.tryLockRun(runId);
  if (!lock.ok) return { ok: true, mode: 'requested', status: 'running' };
  // Nobody executes it: finish it now (a later `colony resume` sees the final status).
  try {
    const finished = await store.log.read(runId, { kinds: ['run.finished'], limit: 1 });
    if (finished.length === 0) {
      const why = reason ? `: ${reason}` : '';
      const data: StoredEvent<'run.finished'>['data'] = {
        status: 'stopped',
        reason: `stopped by ${by}${why} (no process was executing it)`,
        resultBranch: null,
      };
      await store.log.append({ runId, agent: null, kind: 'run.finished', data });
      await store.log.flush();
    }
    await store.runs.setRunStatus(runId, 'stopped');
    return { ok: true, mode: 'finished', status: 'stopped' };
  } finally {
    await lock.release();
  }
}
