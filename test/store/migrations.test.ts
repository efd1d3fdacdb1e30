import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, runMigrations, SCHEMA_VERSION } from '../../src/store/migrations.js';
import { databaseUrlWith, openTestStore, superuserClient } from '../helpers/db.js';

describe('migrations', () => {
  it('several stores opening at once all succeed and each migration is recorded once', async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => openTestStore()));
    try {
      const res = await stores[0]!.pool.query<{ version: number }>(
        'SELECT version FROM colony.colony_migrations ORDER BY version',
      );
      expect(res.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('concurrent runs on a fresh database apply each migration exactly once; re-running is a no-op', async () => {
    const store = await openTestStore();
    const su = await superuserClient(store);
    const db = `mig_${process.pid}_${Date.now()}`;
    await su.query(`CREATE DATABASE ${db}`);
    const url = databaseUrlWith(store.superuserUrl!, { database: db });
    const clients = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        return c;
      }),
    );
    try {
      const reports = await Promise.all(clients.map((c) => runMigrations(c, { appRole: true })));
      expect(reports.flatMap((r) => r.applied).sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(reports.every((r) => r.version === SCHEMA_VERSION)).toBe(true);
      const again = await runMigrations(clients[0]!, { appRole: true });
      expect(again).toEqual({ applied: [], version: SCHEMA_VERSION });
      const tables = await clients[0]!.query<{ t: string }>(
        `SELECT tablename AS t FROM pg_tables WHERE schemaname = 'colony' ORDER BY 1`,
      );
      expect(tables.rows.map((r) => r.t)).toEqual(
        expect.arrayContaining(['colony_migrations', 'events', 'run_heads', 'runs']),
      );
    } finally {
      await Promise.all(clients.map((c) => c.end()));
      await su.query(`DROP DATABASE ${db}`);
      await su.end();
      await store.close();
    }
  });
});
