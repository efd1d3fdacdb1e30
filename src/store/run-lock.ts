import pg from 'pg';

/**
 * Per-run ownership: a session-level advisory lock held on a dedicated connection while a process
 * executes a run. `colony resume` uses it to refuse a run another live process is still executing;
 * a killed process's lock vanishes with its connection.
 */
export type RunLockResult = { ok: true; release(): Promise<void> } | { ok: false; error?: string };

const KEY_SQL = `hashtextextended('colony.run:' || $1, 0)`;

export async function tryLockRun(connection: pg.ClientConfig, runId: string): Promise<RunLockResult> {
  const client = new pg.Client(connection);
  // A dropped connection loses the lock; swallow the event so it cannot crash the process.
  client.on('error', () => {});
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
  let released = false;
  return {
    ok: true,
    async release() {
      if (released) return;
      released = true;
      await client.query(`SELECT pg_advisory_unlock(${KEY_SQL})`, [runId]).catch(() => {});
      await client.end().catch(() => {});
    },
  };
}
