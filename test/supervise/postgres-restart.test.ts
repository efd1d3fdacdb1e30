/**
 * Faults the engine may throw at us (issue 30): Postgres crashes and comes back while a supervisor
 * is resuming a killed run. Whatever the resuming process and the supervisor see — a dropped run
 * lock, failed queries, DBOS's own recovery starting over — the run must finish once, with every
 * completed model call replayed and not made again, nothing lost, and a chain that verifies.
 *
 * Debian's Postgres (a server this test can crash and restart on the same port), a scripted agent on
 * the fake provider, the built CLI: `colony run` (killed with -9), then `colony supervise`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/model/types.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { COLONY_BIN, fakeModelFlags, NO_API_KEYS } from '../helpers/cli.js';
import { type DebianPostgres, startDebianPostgres } from '../helpers/debian-postgres.js';
import { createUserRepo } from '../helpers/user-repo.js';

/** Tool turns before the agent answers: long enough to be killed, and crashed under, mid-way. */
const TOOL_TURNS = 6;
let fake: FakeProvider;
let db: DebianPostgres;
let home: string;
let env: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];

beforeAll(async () => {
  [fake, db] = await Promise.all([
    startFakeProvider({
      policy: (request: ModelRequest) =>
        request.messages.filter((m) => m.role === 'assistant').length < TOOL_TURNS
          ? { toolCalls: [{ name: 'ls', arguments: {} }] }
          : { text: 'listed the folder' },
      latencyMs: 400,
    }),
    startDebianPostgres(),
  ]);
  home = mkdtempSync(join(tmpdir(), 'colony-pg-restart-'));
  env = {
    ...process.env,
    ...NO_API_KEYS,
    COLONY_HOME: home,
    COLONY_AUTO_RESUME: '',
    COLONY_DATABASE_URL: db.url,
  };
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await fake?.close();
  await db?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface Row {
  seq: number;
  agent: string | null;
  kind: string;
  data: Record<string, unknown>;
}

/** The run's events straight from the database; null while it is down. */
async function events(runId: string): Promise<Row[] | null> {
  const client = new pg.Client({ connectionString: db.url });
  client.on('error', () => {});
  try {
    await client.connect();
    const res = await client.query<Row>(
      'SELECT seq, agent, kind, data FROM colony.events WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
    return res.rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

async function until<T>(
  what: string,
  check: () => Promise<T | null> | T | null,
  timeoutMs = 150_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function start(args: string[]): {
  child: ChildProcess;
  output: () => string;
  closed: Promise<number | null>;
} {
  const child = spawn(process.execPath, [COLONY_BIN, ...args], { env });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  return { child, output: () => output, closed };
}

const count = (rows: Row[], kind: string) => rows.filter((e) => e.kind === kind).length;

/** Starts a run, waits for its first model response, kills it with -9; returns its id. */
async function killedRun(): Promise<string> {
  const repo = createUserRepo({ 'README.md': '# crash\n' }, 'colony-pg-restart-repo-').dir;
  const run = start([
    'run',
    '--repo',
    repo,
    '--goal',
    'list the folder',
    ...fakeModelFlags(fake.url),
    '--sandbox',
    'off',
    '--json',
  ]);
  const runId = await until('the run id', () => /"runId":"([^"]+)"/.exec(run.output())?.[1] ?? null);
  await until('a first model response', () =>
    run.output().includes('"kind":"model.response"') ? true : null,
  );
  run.child.kill('SIGKILL');
  await run.closed;
  return runId;
}

/** The run's end as checked by both tests: once, every turn answered once, seq and chain intact. */
async function expectFinishedOnce(runId: string, done: Row[], context: string): Promise<void> {
  expect(done.find((e) => e.kind === 'run.finished')?.data.status, context).toBe('succeeded');
  expect(count(done, 'run.finished')).toBe(1);
  // Every turn answered once in the log: a completed call was replayed, never made again.
  const steps = done.filter((e) => e.kind === 'model.response').map((e) => e.data.step);
  expect(steps).toEqual(Array.from({ length: TOOL_TURNS + 1 }, (_, i) => i + 1));
  // One writer at a time: seq without a gap, and the hash chain holds.
  expect(done.map((e) => e.seq)).toEqual(done.map((_, i) => i + 1));
  const verify = start(['verify', runId]);
  expect(await verify.closed, verify.output()).toBe(0);
}

describe('Postgres restarts while a supervisor resumes a run', () => {
  it('the run finishes once, no completed model call is made again, the chain verifies', async () => {
    const runId = await killedRun();
    const supervisor = start(['supervise', '--interval', '200ms', '--grace', '1s', '--json']);
    // The supervisor took the run and its resume is under way: a model call after the recovery.
    await until('the resume under way', async () => {
      const rows = await events(runId);
      const recovered = rows?.findIndex((e) => e.kind === 'run.recovered') ?? -1;
      return recovered >= 0 && rows?.slice(recovered).some((e) => e.kind === 'model.response') ? true : null;
    });
    await db.crashAndRestart(1_000);

    const done = await until(
      'the run to finish after the restart',
      async () => {
        const rows = await events(runId);
        return rows?.some((e) => e.kind === 'run.finished') ? rows : null;
      },
      240_000,
    ).catch((error) => {
      throw new Error(`${error}; the supervisor said:\n${supervisor.output().slice(-3000)}`);
    });
    supervisor.child.kill('SIGTERM');
    await supervisor.closed;

    // At least the one recovery; a second when the crash cost the resuming process its run lock.
    expect(count(done, 'run.recovered')).toBeGreaterThanOrEqual(1);
    await expectFinishedOnce(runId, done, supervisor.output().slice(-2000));
  }, 420_000);
});

describe('Postgres restarts during colony resume', () => {
  it('the resume pauses with a clear message; the next resume finishes the run once', async () => {
    const runId = await killedRun();
    const resume = start(['resume', runId, '--json']);
    await until('the resume under way', async () => {
      const rows = await events(runId);
      const resumed = rows?.findIndex((e) => e.kind === 'run.resumed') ?? -1;
      return resumed >= 0 && rows?.slice(resumed).some((e) => e.kind === 'model.response') ? true : null;
    });
    await db.crashAndRestart(1_000);
    const first = await resume.closed;
    let done = await events(runId);
    if (!done?.some((e) => e.kind === 'run.finished')) {
      // It lost the database: it says so and how to go on, and wrote nothing more.
      expect(first).not.toBe(0);
      expect(resume.output()).toMatch(new RegExp(`colony resume ${runId}\` finishes it`));
      const again = start(['resume', runId, '--json']);
      expect(await again.closed, again.output().slice(-2000)).toBe(0);
      done = await events(runId);
    }
    await expectFinishedOnce(runId, done ?? [], resume.output().slice(-2000));
  }, 420_000);
});
