import pg from 'pg';

/**
 * Per-run ownership: a session-level advisory lock held on a dedicated connection while a process
 * executes a run. `colony resume` uses it to refuse a run another live process is still executing;
 * a killed process's lock vanishes with its connection.
 */
export type RunLockResult =
  | {
      ok: true;
      release(): Promise<void>;
      /**
       * Resolves (with the reason) if the lock's connection drops before release(): the database went
       * away or the connection was cut, so this process no longer owns the run and must stop writing.
       */
      lost: Promise<string>;
      /** Asks the lock's connection: null while the lock is held, else why it is not. */
      check(): Promise<string | null>;
    }
  | { ok: false; error?: string };

/** The run's lock key (a bigint) from its id in $1; run-lock-holders.ts reads the same key. */
export const RUN_LOCK_KEY_SQL = `hashtextextended('colony.run:' || $1, 0)`;
const KEY_SQL = RUN_LOCK_KEY_SQL;

export async function tryLockRun(connection: pg.ClientConfig, runId: string): Promise<RunLockResult> {
  const client = new pg.Client(connection);
  let released = false;
  let markLost: (reason: string) => void = () => {};
  const lost = new Promise<string>((resolve) => {
    markLost = resolve;
  });
  // A dropped connection loses the lock: never a crash, but the owner is told (see `lost`).
  client.on('error', (err) => {
    if (!released) markLost(`the database connection holding the run's lock failed: ${err.message}`);
  });
  client.on('end', () => {
    if (!released) markLost("the database connection holding the run's lock closed");
  });
  try {
    await client.connect();
    const res = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${KEY_SQL}) AS locked`, [
      runId,
    ]);
    if (!res.rows[0]?.locked) {
      await client.end().catch(() => {});
      return { ok: false };
    }
  } catch (err) {
    await client.end().catch(() => {});
    return { ok: false, error: `run lock: ${(err as Error).message}` };
  }
  return {
    ok: true,
    lost,
    async check() {
      try {
        await client.query('SELECT 1');
        return null;
      } catch (err) {
        const reason = `the database connection holding the run's lock failed: ${(err as Error).message}`;
        markLost(reason);
        return reason;
      }
    },
    async release() {
      if (released) return;
      released = true;
      await client.query(`SELECT pg_advisory_unlock(${KEY_SQL})`, [runId]).catch(() => {});
      await client.end().catch(() => {});
    },
  };
}
