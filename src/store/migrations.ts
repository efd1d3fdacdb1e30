import type pg from 'pg';
import type { Migration } from './migration-types.js';
import { migration001 } from './migrations/001-event-log.js';
import { migration002 } from './migrations/002-chain-cache.js';
import { migration003 } from './migrations/003-coordination.js';
import { migration004 } from './migrations/004-run-slots.js';
import { migration005 } from './migrations/005-task-board.js';
import { migration006 } from './migrations/006-fleet.js';
import { migration007 } from './migrations/007-event-agent-index.js';
import { migration008 } from './migrations/008-watch-issues.js';
import { migration009 } from './migrations/009-task-board-edits.js';

export type { Migration } from './migration-types.js';

/** All migrations, in version order. Append new ones here. */
export const MIGRATIONS: readonly Migration[] = [
  migration001,
  migration002,
  migration003,
  migration004,
  migration005,
  migration006,
  migration007,
  migration008,
  migration009,
];

export const SCHEMA_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

export interface MigrationReport {
  applied: number[];
  version: number;
}

async function currentVersion(client: pg.ClientBase): Promise<number> {
  const exists = await client.query<{ t: string | null }>(
    `SELECT to_regclass('colony.colony_migrations') AS t`,
  );
  if (!exists.rows[0]?.t) return -1;
  const res = await client.query<{ v: number }>(
    'SELECT coalesce(max(version), 0) AS v FROM colony.colony_migrations',
  );
  return res.rows[0]?.v ?? 0;
}

/**
 * Applies pending migrations, each in its own transaction, under a database-wide advisory lock so
 * several processes opening at once apply each migration exactly once. `regrant` re-runs every
 * migration's grants (used when the app role has just been created).
 */
export async function runMigrations(
  client: pg.ClientBase,
  options: { appRole: boolean; regrant?: boolean },
): Promise<MigrationReport> {
  const before = await currentVersion(client);
  if (before >= SCHEMA_VERSION && !options.regrant) return { applied: [], version: before };
  await client.query(`SELECT pg_advisory_lock(hashtextextended('colony.migrations', 0))`);
  try {
    await client.query('CREATE SCHEMA IF NOT EXISTS colony');
    await client.query(`CREATE TABLE IF NOT EXISTS colony.colony_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM colony.colony_migrations')).rows.map(
        (r) => r.version,
      ),
    );
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        if (options.appRole && m.grants) await client.query(m.grants);
        await client.query('INSERT INTO colony.colony_migrations (version, name) VALUES ($1, $2)', [
          m.version,
          m.name,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
      }
      applied.push(m.version);
    }
    if (options.appRole && options.regrant) {
      for (const m of MIGRATIONS) if (m.grants && !applied.includes(m.version)) await client.query(m.grants);
    }
    return { applied, version: await currentVersion(client) };
  } finally {
    await client.query(`SELECT pg_advisory_unlock(hashtextextended('colony.migrations', 0))`);
  }
}
