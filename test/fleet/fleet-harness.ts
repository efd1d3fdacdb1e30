/**
 * What the fleet tests share: worker processes (`colony worker`) started and killed by the test, a
 * test file's fleet (fleetFixture: Debian's Postgres, fake model servers, a database, workers, a user
 * repository and the owner's environment per test), and reading a run's events from the fleet's database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type FakeProvider, type FakeProviderOptions, startFakeProvider } from '../fake-provider/server.js';
import { COLONY_BIN, fakeModelFlags, NO_API_KEYS } from '../helpers/cli.js';
import { type DebianPostgres, startDebianPostgres } from '../helpers/debian-postgres.js';
import { createUserRepo } from '../helpers/user-repo.js';

export interface WorkerProcess {
  name: string;
  /** The worker's COLONY_HOME (a fresh temporary folder; the caller may remove it once it exited). */
  home: string;
  child: ChildProcess;
  stderr: () => string;
  closed: Promise<number | null>;
}

/** Starts `colony worker` (optionally through a wrapper such as `ip netns exec NS`). */
export function startWorker(
  name: string,
  env: NodeJS.ProcessEnv,
  options: { slots?: number; prefix?: string[]; args?: string[] } = {},
): WorkerProcess {
  const home = mkdtempSync(join(tmpdir(), `colony-worker-${name}-`));
  const args = [
    COLONY_BIN,
    'worker',
    '--name',
    name,
    '--slots',
    String(options.slots ?? 2),
    ...(options.args ?? []),
  ];
  const [file, argv] = options.prefix?.length
    ? [options.prefix[0] as string, [...options.prefix.slice(1), process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(file, argv, {
    env: { ...process.env, ...NO_API_KEYS, COLONY_HOME: home, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { name, home, child, stderr: () => stderr, closed };
}

/** Resolves once the worker's first line (it joined the fleet) was written, or rejects after 60 s. */
export async function joined(worker: WorkerProcess): Promise<void> {
  const started = Date.now();
  while (!worker.stderr().includes(`worker ${worker.name}:`)) {
    if (worker.child.exitCode !== null)
      throw new Error(`worker ${worker.name} exited ${worker.child.exitCode}: ${worker.stderr()}`);
    if (Date.now() - started > 60_000)
      throw new Error(`worker ${worker.name} did not join: ${worker.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A `colony run --workers` started in the background, its output kept. */
export interface OwnerProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts the owner (`colony ARGS`) with `env` added to the test's own. */
export function startOwner(args: string[], env: NodeJS.ProcessEnv): OwnerProcess {
  const child = spawn(process.execPath, [COLONY_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/**
 * `colony run --workers` of `agents` peers on `repo`, each adding `perAgent` files under work/ (the
 * fleet-policy.ts peers), no sandbox, the fake model at `modelUrl`, a JSON summary.
 */
export function peersFleetRunArgs(
  repo: string,
  agents: number,
  perAgent: number,
  modelUrl: string,
): string[] {
  return [
    'run',
    '--workers',
    '--topology',
    'peers',
    '--agents',
    String(agents),
    '--repo',
    repo,
    '--goal',
    'each peer adds its files under work/',
    '--verify',
    `test "$(ls work/*/*.txt | wc -l)" -ge ${agents * perAgent}`,
    '--merge-verify',
    'true',
    '--sandbox',
    'off',
    ...fakeModelFlags(modelUrl),
    '--json',
  ];
}

/** A fleet session's row in DBOS's table (its workflow): where it stands and who runs it. */
export interface SessionRow {
  workflow_uuid: string;
  status: string;
  executor_id: string | null;
  output: string | null;
}

/** The run's sessions in DBOS, by workflow id. */
export async function sessionRows(
  db: { sql(text: string, database?: string): Promise<pg.QueryResult> },
  database: string,
  runId: string,
): Promise<SessionRow[]> {
  const res = await db.sql(
    `SELECT workflow_uuid, status, executor_id, output FROM dbos.workflow_status
      WHERE workflow_uuid LIKE '${runId}/%' ORDER BY workflow_uuid`,
    database,
  );
  return res.rows as SessionRow[];
}

export interface LoggedEvent {
  seq: number;
  agent: string | null;
  kind: string;
  data: Record<string, unknown>;
}

/** Every event of the run, in order, straight from the fleet's database. */
export async function runEvents(databaseUrl: string, runId: string): Promise<LoggedEvent[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const res = await client.query<LoggedEvent>(
      'SELECT seq, agent, kind, data FROM colony.events WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
    return res.rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  } finally {
    await client.end();
  }
}

/** Polls `check` every 100 ms until it is true, or throws after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A fleet test's teardown: its workers killed and reaped (a paused one woken first), then its model
 * servers, Postgres, folders and the workers' homes.
 */
export async function stopFleetParts(parts: {
  workers: WorkerProcess[];
  servers: Array<{ close(): Promise<void> } | undefined>;
  db: { stop(): Promise<void> } | undefined;
  folders: string[];
}): Promise<void> {
  for (const w of parts.workers) {
    if (w.child.exitCode !== null || w.child.signalCode !== null) continue;
    w.child.kill('SIGCONT');
    w.child.kill('SIGKILL');
  }
  await Promise.all(parts.workers.map((w) => w.closed));
  for (const server of parts.servers) await server?.close();
  await parts.db?.stop();
  for (const dir of [...parts.folders, ...parts.workers.map((w) => w.home)])
    rmSync(dir, { recursive: true, force: true });
}

/** One test's fleet (FleetFixture.start): its own database, its workers joined to it, a repository. */
export interface TestFleet<W extends readonly WorkerProcess[]> {
  /** The test's database. */
  url: string;
  /** The workers, in the order named, each joined. */
  workers: W;
  repo: { dir: string; base: string };
  /** The owner's COLONY_HOME. */
  home: string;
  /** The owner's environment (`colony run --workers`): no API keys, its home, the test's database. */
  env: NodeJS.ProcessEnv;
}

export interface FleetFixture<P extends Record<string, FakeProviderOptions>> {
  readonly db: DebianPostgres;
  /** The file's fake model servers, by the names given. */
  readonly fakes: { readonly [K in keyof P]: FakeProvider };
  /** Workers, background processes (a `colony run` owner) and folders the tests add: stopped and removed after the file. */
  readonly workers: WorkerProcess[];
  readonly owners: ChildProcess[];
  readonly folders: string[];
  /**
   * A database named `database`, `workers` started on it (`slots` each, default 2) and joined, a user
   * repository holding `files`, the owner's home; `env` goes to the workers and the owner alike.
   */
  start<const N extends readonly string[]>(
    database: string,
    options: {
      workers: N;
      files: Record<string, string>;
      slots?: number;
      repoPrefix?: string;
      env?: NodeJS.ProcessEnv;
      /** More `colony worker` flags (e.g. --ca FILE). */
      workerArgs?: string[];
    },
  ): Promise<TestFleet<{ [K in keyof N]: WorkerProcess }>>;
}

/**
 * A fleet test file's set-up, as a fixture: Debian's Postgres and the fake model servers start before
 * its tests (beforeAll); after them (afterAll) every owner and worker is killed and everything stopped
 * and removed. Call it at the top of the file.
 */
export function fleetFixture<P extends Record<string, FakeProviderOptions>>(providers: P): FleetFixture<P> {
  let db: DebianPostgres | undefined;
  const fakes = {} as { [K in keyof P]: FakeProvider };
  const workers: WorkerProcess[] = [];
  const owners: ChildProcess[] = [];
  const folders: string[] = [];

  beforeAll(async () => {
    const names = Object.keys(providers) as (keyof P)[];
    const [started, servers] = await Promise.all([
      startDebianPostgres(),
      Promise.all(names.map((name) => startFakeProvider(providers[name] as FakeProviderOptions))),
    ]);
    db = started;
    names.forEach((name, i) => {
      fakes[name] = servers[i] as FakeProvider;
    });
  });

  afterAll(async () => {
    for (const o of owners) if (o.exitCode === null && o.signalCode === null) o.kill('SIGKILL');
    await stopFleetParts({ workers, servers: Object.values(fakes), db, folders });
  });

  const postgres = (): DebianPostgres => {
    if (!db) throw new Error('the fleet fixture starts Postgres in beforeAll: use it inside a test');
    return db;
  };
  return {
    get db() {
      return postgres();
    },
    fakes,
    workers,
    owners,
    folders,
    async start(database, options) {
      await postgres().sql(`CREATE DATABASE ${database}`);
      const url = postgres().urlFor(database);
      const env = { COLONY_DATABASE_URL: url, ...options.env };
      const started = options.workers.map((name) =>
        startWorker(name, env, { slots: options.slots ?? 2, args: options.workerArgs }),
      );
      workers.push(...started);
      await Promise.all(started.map(joined));
      const repo = createUserRepo(options.files, options.repoPrefix);
      const home = mkdtempSync(join(tmpdir(), 'colony-owner-'));
      folders.push(repo.dir, home);
      return {
        url,
        // map keeps the tuple's length and order.
        workers: started as { [K in keyof typeof options.workers]: WorkerProcess },
        repo,
        home,
        env: { ...NO_API_KEYS, COLONY_HOME: home, ...env },
      };
    },
  };
}
