import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { type DebianPostgres, startDebianPostgres } from '../helpers/debian-postgres.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { spawnStoreChild } from './child-process.js';

// The fleet's path: COLONY_DATABASE_URL pointing at a Postgres that is not Colony's embedded server,
// here one started from Debian's postgresql binaries (docs/storage.md, "A shared Postgres for a fleet").
let server: DebianPostgres;
// A cluster where no colony_app role exists yet (roles are per cluster, and `server` gets one).
let bare: DebianPostgres;
let tls: DebianPostgres;
let fake: FakeProvider;
const stores: Store[] = [];
const folders: string[] = [];

/** A temporary folder, removed after the file's tests. */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

async function open(databaseUrl: string): Promise<Store> {
  const store = await openStore({
    databaseUrl,
    quiet: true,
    home: tempDir('colony-ext-'),
  });
  stores.push(store);
  return store;
}

// Writes a file, then answers.
const policy: ScriptedPolicy = (request) =>
  request.messages.some((m) => m.role === 'tool')
    ? { text: 'wrote fleet.txt', usage: { input: 20, cachedInput: 0, output: 5 } }
    : {
        toolCalls: [{ name: 'write', arguments: { path: 'fleet.txt', content: 'fleet\n' } }],
        usage: { input: 10, cachedInput: 0, output: 5 },
      };

beforeAll(async () => {
  [server, bare, tls, fake] = await Promise.all([
    startDebianPostgres(),
    startDebianPostgres(),
    startDebianPostgres({ tls: true }),
    startFakeProvider({ policy }),
  ]);
});

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await fake?.close();
  await Promise.all([server?.stop(), bare?.stop(), tls?.stop()]);
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('an external Postgres (Debian postgresql) via databaseUrl / COLONY_DATABASE_URL', () => {
  it('migrates a fresh database, and a second store on the same URL sees the same runs', async () => {
    await server.sql('CREATE DATABASE fresh');
    const url = server.urlFor('fresh');
    const first = await open(url);
    expect(first.embedded).toBeNull();
    const applied = await server.sql('SELECT max(version) AS v FROM colony.colony_migrations', 'fresh');
    expect(applied.rows[0].v).toBe(SCHEMA_VERSION);
    const runId = testRunId('ext-shared');
    expect((await first.runs.createRun({ runId, topology: 'solo', goal: 'g', repo: '/r' })).ok).toBe(true);
    const second = await open(url);
    expect((await second.runs.getRun(runId))?.goal).toBe('g');
    expect((await second.runs.listRuns()).map((r) => r.runId)).toContain(runId);
    // Not in the embedded test database: the URL really selected the other server.
    const embedded = await openTestStore();
    stores.push(embedded);
    expect(await embedded.runs.getRun(runId)).toBeNull();
  });

  it('keeps one gap-free hash chain when two stores and another process append to a run at once', async () => {
    await server.sql('CREATE DATABASE chain');
    const url = server.urlFor('chain');
    const [a, b] = [await open(url), await open(url)];
    const runId = testRunId('ext-chain');
    const child = spawnStoreChild({ COLONY_DATABASE_URL: url });
    await child.send('open');
    // Ten rounds of 30 per writer, so the three writers' batches interleave in the log.
    const rounds = async (append: (i: number) => Promise<number[]>) => {
      const seqs: number[] = [];
      for (let r = 0; r < 10; r++) seqs.push(...(await append(r)));
      return seqs;
    };
    const fromChild = rounds(async () => (await child.send(`append ${runId} 30 child`)).appended as number[]);
    const local = [a, b].map((s, k) =>
      rounds(async (r) => {
        const batch = Array.from({ length: 30 }, (_, i) =>
          s.log.append({ runId, agent: `s${k}`, kind: 'warning', data: { message: `${r}.${i}` } }),
        );
        return (await Promise.all(batch)).map((e) => e.seq);
      }),
    );
    const seqs = await Promise.all([fromChild, ...local]);
    await child.send('close');
    const all = seqs.flat();
    expect([...all].sort((x, y) => x - y)).toEqual(Array.from({ length: 900 }, (_, i) => i + 1));
    expect(await b.log.verify(runId)).toEqual({ runId, events: 900, ok: true, firstBreak: null });
    // The three writers really interleaved (one pool each), rather than running one after another.
    const agents = (await a.log.read(runId)).map((e) => e.agent);
    const switches = agents.filter((agent, i) => i > 0 && agent !== agents[i - 1]).length;
    expect(switches).toBeGreaterThan(2);
  });

  it('records a real solo run (its events and DBOS state) there, with no embedded server', async () => {
    // The least-privileged setup docs/storage.md describes: a plain role owning its database, with
    // colony_app created by an admin and granted to it.
    await server.sql(`CREATE ROLE fleet_user LOGIN PASSWORD 'fleet-pw' NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    await server.sql('CREATE DATABASE fleet_run OWNER fleet_user');
    await server.sql(
      `DO $$ BEGIN CREATE ROLE colony_app NOLOGIN; EXCEPTION WHEN duplicate_object THEN END $$`,
    );
    await server.sql('GRANT colony_app TO fleet_user');
    const url = server.urlFor('fleet_run', { user: 'fleet_user', password: 'fleet-pw' });
    const home = tempDir('colony-ext-home-');
    const repo = createUserRepo({ 'README.md': '# fleet\n' }, 'colony-ext-repo-').dir;
    folders.push(repo);
    const env = { ...NO_API_KEYS, COLONY_HOME: home, COLONY_DATABASE_URL: url };
    const run = await colony(
      ['run', '--repo', repo, '--goal', 'write fleet.txt', ...fakeModelFlags(fake.url), '--json'],
      { env },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    const runId = String(summary.runId);
    // No embedded server was started for this home: no pg/ folder at all.
    expect(existsSync(join(home, 'pg'))).toBe(false);
    expect(readdirSync(home)).not.toContain('pg');
    const rows = await server.sql(
      `SELECT r.status, (SELECT count(*)::int FROM colony.events e WHERE e.run_id = r.run_id) AS n,
              (SELECT array_agg(kind ORDER BY seq) FROM colony.events e WHERE e.run_id = r.run_id) AS kinds
         FROM colony.runs r WHERE r.run_id = '${runId}'`,
      'fleet_run',
    );
    expect(rows.rows[0]).toMatchObject({ status: 'succeeded' });
    expect(rows.rows[0].n).toBeGreaterThan(3);
    expect(rows.rows[0].kinds[0]).toBe('run.started');
    expect(rows.rows[0].kinds).toContain('run.finished');
    // DBOS kept its workflow in schema dbos of the same database, owned by the URL's user.
    const dbos = await server.sql(
      `SELECT w.status, n.nspowner::regrole::text AS owner FROM dbos.workflow_status w, pg_namespace n
        WHERE w.workflow_uuid = '${runId}' AND n.nspname = 'dbos'`,
      'fleet_run',
    );
    expect(dbos.rows).toEqual([{ status: 'SUCCESS', owner: 'fleet_user' }]);
    const store = await open(url);
    expect(await store.log.verify(runId)).toMatchObject({ ok: true, events: rows.rows[0].n });
    // The CLI reads it back from there too, and the embedded test database never saw it.
    const listed = await colony(['runs'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(runId);
    const embedded = await openTestStore();
    stores.push(embedded);
    expect(await embedded.runs.getRun(runId)).toBeNull();
  });

  it('names the setting and the fix when the URL is wrong (colony runs)', async () => {
    const home = tempDir('colony-ext-bad-');
    const runs = (url: string) => colony(['runs'], { env: { COLONY_HOME: home, COLONY_DATABASE_URL: url } });
    const badPassword = server.urlFor('fleet', { user: server.user, password: 'not-the-password' });
    const wrong = await runs(badPassword);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    expect(wrong.stderr).toContain(
      `COLONY_DATABASE_URL=postgres://${server.user}:***@127.0.0.1:${server.port}/fleet`,
    );
    expect(wrong.stderr).toMatch(
      /password authentication failed for user "fleet_admin": check the user and password/,
    );
    expect(wrong.stderr).not.toContain('not-the-password');
    // Port 1 on loopback: nothing listens there.
    const closed = await runs(`postgres://u:p@127.0.0.1:1/db`);
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(
      /COLONY_DATABASE_URL=postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db: connection refused at 127\.0\.0\.1:1: is Postgres running there/,
    );
    expect(closed.stderr).toContain('A shared Postgres for a fleet');
    const missing = await runs(server.urlFor('no_such_db'));
    expect(missing.stderr).toMatch(/database "no_such_db" does not exist: create it first/);
    for (const r of [wrong, closed, missing]) expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(home, 'pg'))).toBe(false);
  });
});

describe('an external Postgres: roles and TLS', () => {
  it('grants colony_app when an admin creates it after the database was migrated without it', async () => {
    await bare.sql(`CREATE ROLE late LOGIN PASSWORD 'late-pw'`);
    await bare.sql('CREATE DATABASE late OWNER late');
    const url = bare.urlFor('late', { user: 'late', password: 'late-pw' });
    const messages: string[] = [];
    const before = await openStore({ databaseUrl: url, onMessage: (m) => messages.push(m) });
    stores.push(before);
    const runId = testRunId('late');
    expect((await before.runs.createRun({ runId, topology: 'solo', goal: 'g', repo: '/r' })).ok).toBe(true);
    await before.close();
    expect(messages).toEqual([expect.stringMatching(/could not switch to role colony_app/)]);
    await bare.sql('CREATE ROLE colony_app NOLOGIN');
    await bare.sql('GRANT colony_app TO late');
    const after = await open(url);
    const who = await after.pool.query<{ u: string }>('SELECT current_user AS u');
    expect(who.rows[0]?.u).toBe('colony_app');
    expect((await after.runs.getRun(runId))?.goal).toBe('g');
    await after.log.append({ runId, agent: null, kind: 'warning', data: { message: 'x' } });
    expect((await after.log.verify(runId)).ok).toBe(true);
  });

  it('is used over TLS as sslmode in the URL says, and refuses the URL without it', async () => {
    const store = await open(tls.url);
    await store.runs.listRuns(); // leaves an idle app connection in the pool
    // Seen from the server (the app role may not read other sessions' pg_stat_ssl rows).
    const seen = await tls.sql(
      `SELECT count(*)::int AS n, bool_and(s.ssl) AS ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
        WHERE a.datname = 'fleet'`,
    );
    expect(seen.rows[0]).toMatchObject({ ssl: true });
    expect(seen.rows[0].n).toBeGreaterThan(0);
    const plain = tls.url.replace(/\?.*$/, '');
    const refused = await openStore({ databaseUrl: plain, quiet: true }).then(
      () => 'opened',
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/no pg_hba\.conf entry .*no encryption.*add a "host" \(or "hostssl"\) line/);
    // pg 8 checks the certificate for sslmode=require too (libpq would not); no-verify skips the check.
    const requireMode = await openStore({ databaseUrl: `${plain}?sslmode=require`, quiet: true }).then(
      () => 'opened',
      (err: Error) => err.message,
    );
    expect(requireMode).toMatch(/self-signed certificate: the server's certificate is not trusted/);
    expect((await open(`${plain}?sslmode=no-verify`)).embedded).toBeNull();
  });
});
