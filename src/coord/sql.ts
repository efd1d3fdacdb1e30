/** SQL fragments shared by the coordination services. */
import type pg from 'pg';

/** A timestamptz column as ISO-8601 UTC text with microseconds (as the event log prints `ts`). */
export const isoText = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Runs `work` in a transaction on one pooled connection. Coordination writes its projection rows and
 * their events (colony.events, whose insert trigger chains them) in one transaction, so a fact is
 * never in one place without the other, and the log's order is the order the facts happened.
 *
 * `asyncCommit` (read state: cursors, read marks, `message.delivered`) returns from COMMIT without
 * waiting for the WAL flush. A database crash can lose such a commit only if no later synchronous
 * commit followed it (WAL is flushed in order): the agent's next logged model response makes it
 * durable. At worst an entry or message is shown again; the chain stays intact.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  options: { asyncCommit?: boolean } = {},
): Promise<T> {
  const client = await pool.connect();
  // A pooled client has no 'error' listener while it is checked out: its connection dying then (the
  // database restarting) emitted an unhandled 'error' and ended the process (the soak: both fleet
  // workers at once). The failure reaches the caller through the query that fails; the client is
  // destroyed, not returned to the pool.
  let broken: Error | null = null;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    await client.query(options.asyncCommit ? 'BEGIN; SET LOCAL synchronous_commit TO off' : 'BEGIN');
    const value = await work(client);
    await client.query('COMMIT');
    return value;
  } catch (err) {
    if (!broken) await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    // A broken client keeps the listener: it is destroyed, and may say more as it goes.
    if (!broken) client.removeListener('error', onError);
    client.release(broken ?? undefined);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
