/**
 * A worker started before its database answers (a fleet's machines booting together, Postgres
 * restarting) waits for it and then joins, instead of exiting at once (issue 30). A database that
 * answers with an error (a wrong password) fails at once, waiting or not; `--wait-for-database 0`
 * does not wait. Debian's Postgres, stopped and started again on the same port; the built CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DebianPostgres, startDebianPostgres } from '../helpers/debian-postgres.js';
import { joined, startWorker, type WorkerProcess } from './fleet-harness.js';

let db: DebianPostgres;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  db = await startDebianPostgres();
}, 120_000);

afterAll(async () => {
  for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await db?.stop();
});

function worker(name: string, databaseUrl: string, args: string[] = []): WorkerProcess {
  const started = startWorker(
    name,
    { COLONY_DATABASE_URL: databaseUrl, COLONY_AUTO_RESUME: 'off' },
    { args },
  );
  workers.push(started);
  return started;
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('colony worker and a database that is not up yet', () => {
  it('waits while the database is down, says so once, then joins the fleet', async () => {
    // Postgres goes down for 4 s; the worker starts while it is down.
    const restarted = db.crashAndRestart(4_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const w = worker('early', db.url);
    await until('the waiting line', () => w.stderr().includes('waiting up to 120 s for the database'));
    expect(w.child.exitCode).toBeNull();
    await restarted;
    await joined(w);
    expect(w.stderr()).toMatch(/database reached after \d+\.\d s/);
    expect(w.stderr().match(/waiting up to/g)).toHaveLength(1);
    w.child.kill('SIGINT');
    expect(await w.closed).toBe(0);
  }, 120_000);

  it('--wait-for-database 0 fails at once while the database is down, naming it', async () => {
    const restarted = db.crashAndRestart(3_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const w = worker('impatient', db.url, ['--wait-for-database', '0']);
    const code = await w.closed;
    await restarted;
    expect(code).toBe(1);
    expect(w.stderr()).toContain("cannot open the fleet's database");
    expect(w.stderr()).not.toContain('waiting up to');
  }, 120_000);

  // Within the test's 2 minutes although the worker may wait 5: it did not wait.
  it('a database that answers with an error (wrong password) fails at once, not after the wait', async () => {
    const wrong = db.urlFor('fleet', { user: db.user, password: `${db.password}-wrong` });
    const w = worker('wrong-password', wrong, ['--wait-for-database', '5m']);
    const code = await w.closed;
    expect(code).toBe(1);
    expect(w.stderr()).toContain("cannot open the fleet's database");
    expect(w.stderr()).not.toContain('waiting up to');
  }, 120_000);

  it('refuses a --wait-for-database that is not a duration', async () => {
    const w = worker('bad-flag', db.url, ['--wait-for-database', 'soon']);
    expect(await w.closed).toBe(2);
    expect(w.stderr()).toContain('--wait-for-database must be a duration like 2m or 30s, or 0 (got "soon")');
  }, 60_000);
});
