import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLaunchLock } from '../../src/run/durable.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, superuserClient } from '../helpers/db.js';

const CHILD = fileURLToPath(new URL('./fixtures/durable-child.mjs', import.meta.url));
let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

function runChild(url: string, runId: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CHILD, url, runId], { timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('executeDurably', () => {
  it('survives several processes launching DBOS for the first time at once on a fresh database', async () => {
    const admin = await superuserClient(store);
    const db = `colony_dbos_race_${process.pid}_${Date.now().toString(36)}`;
    await admin.query(`CREATE DATABASE ${db}`);
    const url = new URL(store.superuserUrl ?? '');
    url.pathname = `/${db}`;
    try {
      const results = await Promise.all([0, 1, 2].map((i) => runChild(url.toString(), `r-race-${i}`)));
      for (const r of results) {
        expect(r.stderr).not.toMatch(/duplicate key|deadlock/);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout.trim())).toEqual({
          result: { ok: true },
          steps: ['prepare', 'work', 'finalize'],
        });
      }
      // And the schema is usable afterwards (a later launch works).
      expect((await runChild(url.toString(), 'r-race-later')).code).toBe(0);
    } finally {
      await admin.query(`DROP DATABASE ${db} WITH (FORCE)`);
      await admin.end();
    }
  });

  it('names who holds the launch lock while it waits for it, then launches', async () => {
    const admin = await superuserClient(store);
    const db = `colony_dbos_lock_${process.pid}_${Date.now().toString(36)}`;
    await admin.query(`CREATE DATABASE ${db}`);
    const url = new URL(store.superuserUrl ?? '');
    url.pathname = `/${db}`;
    const holder = new pg.Client({ connectionString: url.toString(), application_name: 'lock-holder-test' });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(hashtext('colony.dbos.launch'))`);
      const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const lines: string[] = [];
      let ran = false;
      await withLaunchLock(
        url.toString(),
        async () => {
          ran = true;
        },
        {
          afterMs: 200,
          say: (line) => {
            lines.push(line);
            // Told once: let it go.
            void holder.query(`SELECT pg_advisory_unlock(hashtext('colony.dbos.launch'))`);
          },
        },
      );
      expect(ran).toBe(true);
      expect(lines[0]).toMatch(
        /waiting \d+ s for DBOS's launch lock, held by backend \d+ \(lock-holder-test, /,
      );
      expect(lines[0]).toContain(`backend ${rows[0]?.pid} `);
    } finally {
      await holder.end();
      await admin.query(`DROP DATABASE ${db} WITH (FORCE)`);
      await admin.end();
    }
  });
});
