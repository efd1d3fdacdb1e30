/**
 * What a supervisor asks of runs that lost their process (supervise/): how long each run's log has
 * been silent (by the database's clock, as `ts` is) and whether a person asked to stop it.
 */
import type pg from 'pg';

export interface RunSilence {
  /** Milliseconds since the run's last event; null when it has none. */
  silentMs: number | null;
  stopRequested: boolean;
}

const SQL = `
  SELECT r.run_id,
         (SELECT (extract(epoch FROM clock_timestamp() - e.ts) * 1000)::bigint
            FROM colony.events e WHERE e.run_id = r.run_id ORDER BY e.seq DESC LIMIT 1) AS silent_ms,
         EXISTS (SELECT 1 FROM colony.events e
                  WHERE e.run_id = r.run_id AND e.kind = 'run.stop_requested') AS stop_requested
    FROM unnest($1::text[]) AS r(run_id)`;

export async function runSilences(
  pool: pg.Pool,
  runIds: readonly string[],
): Promise<Map<string, RunSilence>> {
  if (runIds.length === 0) return new Map();
  const res = await pool.query<{ run_id: string; silent_ms: string | null; stop_requested: boolean }>(SQL, [
    runIds,
  ]);
  return new Map(
    res.rows.map((row) => [
      row.run_id,
      {
        silentMs: row.silent_ms === null ? null : Number(row.silent_ms),
        stopRequested: row.stop_requested,
      },
    ]),
  );
}
