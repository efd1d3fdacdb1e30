/**
 * Per-server cap of concurrent runs (issue 5: "at most 10 concurrent runs; the 11th waits or fails
 * clearly, by flag"). Across processes on one store: slot k (1..maxRuns) is owned by holding the
 * session advisory lock (scope key, k) on a dedicated connection, so a crashed process's slot is freed
 * by Postgres when its connection goes. `colony.run_slots` records who holds which slot (a row counts
 * only while its lock is held). A waiter retries when a slot is released (NOTIFY) or every `pollMs`
 * (a dead holder cannot notify). Waiters are not queued fairly among processes.
 */
import { hostname } from 'node:os';
import pg from 'pg';

export const DEFAULT_MAX_RUNS = 10;
/** Scope of the server-wide cap; tests use their own scope so they do not see other runs. */
export const SERVER_SCOPE = 'server';
const CHANNEL = 'colony_run_slots';
// Two-int advisory keys (scope hash, slot) live apart from the one-bigint keys of run locks.
const SCOPE_KEY_SQL = `(hashtext('colony.run-slots:' || $1) & 2147483647)`;

export interface SlotHolder {
  slot: number;
  runId: string;
  pid: number;
  host: string;
  acquiredAt: string;
}

export interface RunSlotOptions {
  connection: pg.ClientConfig;
  runId: string;
  maxRuns: number;
  /** Wait for a slot (true) or fail at once when all are taken. */
  wait: boolean;
  scope?: string;
  signal?: AbortSignal;
  /** Retry interval while waiting, besides NOTIFY (default 1 s). */
  pollMs?: number;
  /** Called once when the run has to wait, with the runs holding the slots. */
  onWait?: (holders: SlotHolder[]) => void;
}

export interface RunSlot {
  slot: number;
  /** How long the run waited for it (0 when one was free). */
  waitedMs: number;
  release(): Promise<void>;
}

export type RunSlotError =
  | { kind: 'runs_per_server'; message: string; maxRuns: number; holders: SlotHolder[] }
  | { kind: 'aborted'; message: string }
  | { kind: 'store'; message: string };

export type RunSlotResult = ({ ok: true } & RunSlot) | { ok: false; error: RunSlotError };

/** The maximum from the environment (`COLONY_MAX_RUNS`), else the default. */
export function maxRunsFromEnv(env: NodeJS.ProcessEnv): number {
  const parsed = Number(env.COLONY_MAX_RUNS);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : DEFAULT_MAX_RUNS;
}

/** Whether to wait for a slot, from `COLONY_WAIT_FOR_SLOT` (`0`/`false`/`no`: fail at once). */
export function waitForSlotFromEnv(env: NodeJS.ProcessEnv): boolean {
  return !/^(0|false|no)$/i.test(env.COLONY_WAIT_FOR_SLOT ?? '');
}

export function slotLimitMessage(maxRuns: number, holders: readonly SlotHolder[]): string {
  const runs = holders.map((h) => h.runId).join(', ');
  return (
    `this server already runs ${holders.length || maxRuns} run(s), its limit of ${maxRuns} concurrent runs` +
    (runs ? ` (${runs})` : '') +
    '. Wait for one to finish (run without --no-wait to queue), or raise the limit with --max-runs N or COLONY_MAX_RUNS=N.'
  );
}

export async function acquireRunSlot(options: RunSlotOptions): Promise<RunSlotResult> {
  const scope = options.scope ?? SERVER_SCOPE;
  const client = new pg.Client(options.connection);
  // A dropped connection frees the slot; swallow the event so it cannot crash the process.
  client.on('error', () => {});
  let wake: (() => void) | null = null;
  client.on('notification', () => wake?.());
  const fail = async (error: RunSlotError): Promise<RunSlotResult> => {
    await client.end().catch(() => {});
    return { ok: false, error };
  };
  const startedAt = performance.now();
  try {
    await client.connect();
    let listening = false;
    for (;;) {
      if (options.signal?.aborted) {
        return fail({ kind: 'aborted', message: 'stopped while waiting for a run slot' });
      }
      let slot = await tryTake(client, scope, options.maxRuns);
      if (slot === null && !options.wait) {
        const holders = await slotHolders(client, scope, options.maxRuns);
        return fail({
          kind: 'runs_per_server',
          message: slotLimitMessage(options.maxRuns, holders),
          maxRuns: options.maxRuns,
          holders,
        });
      }
      if (slot === null && !listening) {
        await client.query(`LISTEN ${CHANNEL}`);
        listening = true;
        // Try again after LISTEN: a release between the first try and LISTEN would be missed.
        slot = await tryTake(client, scope, options.maxRuns);
        if (slot === null) options.onWait?.(await slotHolders(client, scope, options.maxRuns));
      }
      if (slot !== null) {
        await client.query(
          `INSERT INTO colony.run_slots (scope, slot, run_id, pid, host) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (scope, slot) DO UPDATE
             SET run_id = EXCLUDED.run_id, pid = EXCLUDED.pid, host = EXCLUDED.host, acquired_at = now()`,
          [scope, slot, options.runId, process.pid, hostname()],
        );
        if (listening) await client.query(`UNLISTEN ${CHANNEL}`);
        const waitedMs = Math.round(performance.now() - startedAt);
        return { ok: true, slot, waitedMs, release: releaser(client, scope, slot) };
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, options.pollMs ?? 1000);
        function done(): void {
          clearTimeout(timer);
          wake = null;
          options.signal?.removeEventListener('abort', done);
          resolve();
        }
        wake = done;
        options.signal?.addEventListener('abort', done, { once: true });
      });
    }
  } catch (err) {
    return fail({ kind: 'store', message: `run slots: ${(err as Error).message}` });
  }
}

/** The runs holding slots of `scope` now (rows whose advisory lock is held). */
export async function listRunSlots(
  connection: pg.ClientConfig,
  maxRuns: number,
  scope = SERVER_SCOPE,
): Promise<SlotHolder[]> {
  const client = new pg.Client(connection);
  client.on('error', () => {});
  await client.connect();
  try {
    return await slotHolders(client, scope, maxRuns);
  } finally {
    await client.end().catch(() => {});
  }
}

async function tryTake(client: pg.Client, scope: string, maxRuns: number): Promise<number | null> {
  for (let slot = 1; slot <= maxRuns; slot++) {
    const res = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(${SCOPE_KEY_SQL}, $2) AS locked`,
      [scope, slot],
    );
    if (res.rows[0]?.locked) return slot;
  }
  return null;
}

async function slotHolders(client: pg.Client, scope: string, maxRuns: number): Promise<SlotHolder[]> {
  const res = await client.query<{
    slot: number;
    run_id: string;
    pid: number;
    host: string;
    acquired_at: Date;
  }>(
    `SELECT r.slot, r.run_id, r.pid, r.host, r.acquired_at FROM colony.run_slots r
     WHERE r.scope = $1 AND r.slot <= $2 AND EXISTS (
       SELECT 1 FROM pg_locks l
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
         AND l.classid = ${SCOPE_KEY_SQL}::oid AND l.objid = r.slot::oid)
     ORDER BY r.slot`,
    [scope, maxRuns],
  );
  return res.rows.map((r) => ({
    slot: r.slot,
    runId: r.run_id,
    pid: r.pid,
    host: r.host,
    acquiredAt: r.acquired_at.toISOString(),
  }));
}

function releaser(client: pg.Client, scope: string, slot: number): () => Promise<void> {
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await client
      .query('DELETE FROM colony.run_slots WHERE scope = $1 AND slot = $2', [scope, slot])
      .catch(() => {});
    await client.query(`SELECT pg_advisory_unlock(${SCOPE_KEY_SQL}, $2)`, [scope, slot]).catch(() => {});
    await client.query(`SELECT pg_notify('${CHANNEL}', $1)`, [scope]).catch(() => {});
    await client.end().catch(() => {});
  };
}
