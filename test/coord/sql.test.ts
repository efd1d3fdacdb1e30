/**
 * A coordination transaction whose connection dies while it holds it (the database restarting, a
 * backend terminated): the caller gets the error, and the process does not — a pooled client has no
 * 'error' listener while checked out, and its unhandled 'error' ended both fleet workers of the soak.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/coord/sql.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

describe('inTransaction', () => {
  it('fails the transaction, not the process, when its connection is terminated while held', async () => {
    const attempt = inTransaction(store.pool, async (client) => {
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      // Another connection ends this one's backend; the client hears it while no query of its runs.
      await store.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client.query('SELECT 1');
    });
    await expect(attempt).rejects.toThrow(/terminat|not queryable/i);
    // The pool goes on with a new connection: the broken one was not handed out again.
    for (let i = 0; i < 5; i++) expect((await store.pool.query('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    expect(
      await inTransaction(store.pool, async (client) => (await client.query('SELECT 2 AS two')).rows[0]?.two),
    ).toBe(2);
  });
});
