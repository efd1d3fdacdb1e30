/**
 * Which runs some process holds the ownership lock of (run-lock.ts), read from `pg_locks` without
 * taking any lock: a run marked running whose lock nobody holds lost its process (killed, crashed,
 * machine gone) and waits for `colony resume`. A one-bigint advisory key shows in `pg_locks` as
 * its high half in `classid`, its low half in `objid` and `objsubid` 1.
 */
import type pg from 'pg';
import { RUN_LOCK_KEY_SQL } from './run-lock.js';

const KEY = RUN_LOCK_KEY_SQL.replace('$1', 'r.run_id');

const HELD_SQL = `
  SELECT r.run_id FROM unnest($1::text[]) AS r(run_id)
   WHERE EXISTS (
     SELECT 1 FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = ((${KEY} >> 32) & 4294967295)::oid
        AND l.objid = (${KEY} & 4294967295)::oid)`;

/** The ids among `runIds` whose run lock is held now. */
export async function heldRunLocks(pool: pg.Pool, runIds: readonly string[]): Promise<Set<string>> {
  if (runIds.length === 0) return new Set();
  const res = await pool.query<{ run_id: string }>(HELD_SQL, [runIds]);
  return new Set(res.rows.map((r) => r.run_id));
}
