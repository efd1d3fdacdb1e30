/**
 * Runs whose process is gone. A run is `running` in its log and its runs row until its process
 * finishes it; a process killed with -9 (or a crashed machine) never does, and would show as running
 * for ever. Its run lock (a session advisory lock, store/run-lock.ts) vanished with its connection,
 * so a running run whose lock nobody holds is shown as `interrupted`, with what finishes it.
 * Between recording a new run and taking its lock (a moment while the run starts) the lock is free
 * too: a recorded owner still alive on this machine keeps the run `running`.
 */
import { hostname } from 'node:os';
import type { ShownRunStatus } from '../core/events.js';
import { heldRunLocks, type RunRecord, type Store } from '../store/index.js';
import { isProcessAlive } from '../store/process-liveness.js';

type RunOwner = Pick<RunRecord, 'runId' | 'status' | 'pid' | 'host'>;

/** Why an interrupted run is shown so, and what the user can do. */
export function interruptedReason(runId: string): string {
  return (
    `its process is gone (killed or crashed: nothing executes it any more); ` +
    `colony resume ${runId} finishes it, colony stop ${runId} ends it`
  );
}

/** The ids among `runs` that are running with no live process. */
export async function interruptedRunIds(store: Store, runs: readonly RunOwner[]): Promise<Set<string>> {
  const running = runs.filter((r) => r.status === 'running' && !ownerAliveHere(r));
  const held = await heldRunLocks(
    store.pool,
    running.map((r) => r.runId),
  );
  return new Set(running.filter((r) => !held.has(r.runId)).map((r) => r.runId));
}

export async function isRunInterrupted(store: Store, runId: string): Promise<boolean> {
  const run = await store.runs.getRun(runId);
  return run !== null && (await interruptedRunIds(store, [run])).has(runId);
}

/** `status` as shown: a running run in `interrupted` is shown interrupted. */
export function shownStatus(runId: string, status: string, interrupted: ReadonlySet<string>): ShownRunStatus {
  return status === 'running' && interrupted.has(runId) ? 'interrupted' : (status as ShownRunStatus);
}

function ownerAliveHere(run: RunOwner): boolean {
  return run.pid !== null && run.host === hostname() && isProcessAlive(run.pid);
}
