import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { databaseUrlWith, openTestStore, superuserClient, testRunId } from '../helpers/db.js';

// COLONY_DATABASE_URL mode, exercised against the test server acting as an "external" Postgres.
let host: Store;
const suffix = `${process.pid}_${Date.now().toString(36)}`;
const dbOwned = `ext_su_${suffix}`;
const dbPlain = `ext_plain_${suffix}`;
const plainUser = `ext_user_${suffix}`;

beforeAll(async () => {
  host = await openTestStore();
  const su = await superuserClient(host);
  await su.query(`CREATE DATABASE ${dbOwned}`);
  await su.query(`CREATE ROLE ${plainUser} LOGIN PASSWORD 'pw'`);
  await su.query(`CREATE DATABASE ${dbPlain} OWNER ${plainUser}`);
  await su.end();
});

afterAll(async () => {
  const su = await superuserClient(host);
  await su.query(`DROP DATABASE IF EXISTS ${dbOwned} WITH (FORCE)`);
  await su.query(`DROP DATABASE IF EXISTS ${dbPlain} WITH (FORCE)`);
  await su.query(`DROP ROLE IF EXISTS ${plainUser}`);
  await su.end();
  await host.close();
});

describe.skipIf(Boolean(process.env.COLONY_DATABASE_URL))('COLONY_DATABASE_URL', () => {
  it('migrates with the URL and runs the app as colony_app via the role option', async () => {
    const url = databaseUrlWith(host.superuserUrl!, { database: dbOwned });
    const messages: string[] = [];
    const store = await openTestStore({ databaseUrl: url, onMessage: (m) => messages.push(m) });
    try {
      expect(store.embedded).toBeNull();
      expect(store.superuserUrl).toBeNull();
      expect(messages).toEqual([]);
      const who = await store.pool.query<{ u: string }>('SELECT current_user AS u');
      expect(who.rows[0]!.u).toBe('colony_app');
      const runId = testRunId('ext');
      await store.log.appendMany(
        [1, 2, 3].map((i) => ({ runId, agent: 'a', kind: 'warning', data: { message: `${i}` } })),
      );
      expect((await store.log.verify(runId)).ok).toBe(true);
      await expect(store.pool.query('DELETE FROM colony.events')).rejects.toThrow(/permission denied/);
    } finally {
      await store.close();
    }
  });

  it('falls back to the URL role with one warning when it cannot switch to colony_app', async () => {
    const url = databaseUrlWith(host.superuserUrl!, { user: plainUser, password: 'pw', database: dbPlain });
    const messages: string[] = [];
    const store = await openTestStore({ databaseUrl: url, onMessage: (m) => messages.push(m) });
    try {
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(/could not switch to role colony_app.*guard trigger still refuses/);
      const runId = testRunId('plain');
      await store.log.append({ runId, agent: null, kind: 'warning', data: { message: 'x' } });
      // The owner may write, but the guard trigger keeps the log append-only.
      await expect(store.pool.query('DELETE FROM colony.events')).rejects.toThrow(/append-only/);
      expect((await store.log.verify(runId)).ok).toBe(true);
    } finally {
      await store.close();
    }
  });
});
