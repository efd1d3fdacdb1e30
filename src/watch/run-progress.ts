/**
 * Where a watched run is: not recorded yet, running (with the last event's seq, its progress), or
 * finished (status, reason, result branch from its run.finished event).
 */
import type { Store } from '../store/index.js';

export type RunProgress =
  | { state: 'absent' }
  | { state: 'running'; lastSeq: number; topology: string }
  | {
      state: 'finished';
      topology: string;
      status: string;
      reason: string;
      resultBranch: string | null;
    };

export async function runProgress(store: Store, runId: string): Promise<RunProgress> {
  const run = await store.runs.getRun(runId);
  if (!run) return { state: 'absent' };
  if (run.status === 'running') {
    const head = await store.pool.query<{ last_seq: string }>(
      'SELECT last_seq FROM colony.run_heads WHERE run_id = $1',
      [runId],
    );
    return { state: 'running', lastSeq: Number(head.rows[0]?.last_seq ?? 0), topology: run.topology };
  }
  const [finished] = await store.log.read(runId, { kinds: ['run.finished'], limit: 1 });
  return {
    state: 'finished',
    topology: run.topology,
    status: finished?.data.status ?? run.status,
    reason: finished?.data.reason ?? '',
    resultBranch: finished?.data.resultBranch ?? null,
  };
}
