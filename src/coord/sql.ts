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
  try {
    await client.query(options.asyncCommit ? 'BEGIN; SET LOCAL synchronous_commit TO off' : 'BEGIN');
    const value = await work(client);
    await client.query('COMMIT');
    return value;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
