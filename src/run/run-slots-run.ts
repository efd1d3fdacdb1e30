/**
 * Taking a run slot for executeRun: wait (default; a line says so) or fail clearly (`--no-wait`), and
 * log the limit as `limit.hit {limit: 'runs_per_server'}`. A run refused a slot, or stopped while it
 * waited, is finished in the log (it never started working), so it does not look like a crashed run.
 */
import type { Store } from '../store/index.js';
import type { EventLog } from '../store/types.js';
import { acquireRunSlot, maxRunsFromEnv, type RunSlot, waitForSlotFromEnv } from './run-slots.js';

export interface RunSlotSettings {
  /** Default: COLONY_MAX_RUNS, else 10. */
  maxRuns?: number;
  /** Default: COLONY_WAIT_FOR_SLOT (wait unless `0`/`false`/`no`). */
  wait?: boolean;
  /** Default: the server-wide scope. */
  scope?: string;
  /** Where the "waiting for a slot" line goes (default stderr). */
  onWait?: (line: string) => void;
}

export async function takeRunSlot(options: {
  store: Store;
  runId: string;
  log: EventLog;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  settings?: RunSlotSettings;
}): Promise<{ ok: true; slot: RunSlot } | { ok: false; error: string }> {
  const { store, runId, log, settings = {} } = options;
  const maxRuns = settings.maxRuns ?? maxRunsFromEnv(options.env);
  const wait = settings.wait ?? waitForSlotFromEnv(options.env);
  const limitHit = (used: number) =>
    log.append({
      runId,
      agent: null,
      kind: 'limit.hit',
      data: { limit: 'runs_per_server', value: maxRuns, used },
    });
  let waited: Promise<unknown> | null = null;
  const taken = await acquireRunSlot({
    connection: store.connection,
    runId,
    maxRuns,
    wait,
    scope: settings.scope,
    signal: options.signal,
    onWait: (holders) => {
      waited = limitHit(holders.length).catch(() => {});
      const line = `waiting for a run slot: ${holders.length} run(s) are running on this server (limit ${maxRuns}; raise it with --max-runs N or COLONY_MAX_RUNS=N)`;
      (settings.onWait ?? ((text: string) => process.stderr.write(`${text}\n`)))(line);
    },
  });
  await waited;
  if (taken.ok) return { ok: true, slot: taken };
  const { error } = taken;
  if (error.kind === 'runs_per_server') await limitHit(error.holders.length);
  if (error.kind === 'store') return { ok: false, error: error.message };
  const status = error.kind === 'aborted' ? 'stopped' : 'failed';
  await log.append({
    runId,
    agent: null,
    kind: 'run.finished',
    data: { status, reason: error.message, resultBranch: null },
  });
  await store.runs.setRunStatus(runId, status);
  return { ok: false, error: error.message };
}
