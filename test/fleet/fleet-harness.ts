/**
 * What the fleet tests share: worker processes (`colony worker`) started and killed by the test, the
 * owner's `colony run --workers`, and reading a run's events from the fleet's database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { COLONY_BIN, NO_API_KEYS } from '../helpers/cli.js';

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
  options: { slots?: number; prefix?: string[] } = {},
): WorkerProcess {
  const home = mkdtempSync(join(tmpdir(), `colony-worker-${name}-`));
  const args = [COLONY_BIN, 'worker', '--name', name, '--slots', String(options.slots ?? 2)];
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

/** A fleet test's teardown: its workers killed and reaped, then its model servers, Postgres and folders. */
export async function stopFleetParts(parts: {
  workers: WorkerProcess[];
  servers: Array<{ close(): Promise<void> } | undefined>;
  db: { stop(): Promise<void> } | undefined;
  folders: string[];
}): Promise<void> {
  for (const w of parts.workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await Promise.all(parts.workers.map((w) => w.closed));
  for (const server of parts.servers) await server?.close();
  await parts.db?.stop();
  for (const dir of parts.folders) rmSync(dir, { recursive: true, force: true });
}
