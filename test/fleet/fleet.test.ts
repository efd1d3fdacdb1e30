import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { type DebianPostgres, startDebianPostgres } from '../helpers/debian-postgres.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { joined, runEvents, startWorker, until, type WorkerProcess } from './fleet-harness.js';
import { fleetPeersPolicy } from './fleet-policy.js';

// A run's peers on two worker processes (this machine, loopback): the owner keeps the hub and the
// merge queue, workers clone over HTTP with per-agent tokens and take sessions from the DBOS queue.
let db: DebianPostgres;
let fake: FakeProvider;
const workers: WorkerProcess[] = [];
const folders: string[] = [];
const FILES = 3;

beforeAll(async () => {
  [db, fake] = await Promise.all([
    startDebianPostgres(),
    startFakeProvider({ policy: fleetPeersPolicy(FILES), latencyMs: 150 }),
  ]);
});

afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.closed));
  await fake?.close();
  await db?.stop();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function runArgs(repo: string, agents: number): string[] {
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
    `test "$(ls work/*/*.txt | wc -l)" -ge ${agents * FILES}`,
    '--merge-verify',
    'true',
    '--sandbox',
    'off',
    ...fakeModelFlags(fake.url),
    '--json',
  ];
}

function filesOn(repo: string, branch: string): string[] {
  return execFileSync('git', ['ls-tree', '-r', '--name-only', branch, 'work'], { cwd: repo, encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .sort();
}

function expectedFiles(agents: number): string[] {
  return Array.from({ length: agents }, (_, i) =>
    Array.from({ length: FILES }, (_, k) => `work/peer-${i + 1}/${k + 1}.txt`),
  )
    .flat()
    .concat('work/.keep')
    .sort();
}

describe('colony run --workers', () => {
  it('runs every peer on the fleet: sessions spread over both workers, all changes land', async () => {
    await db.sql('CREATE DATABASE spread');
    const url = db.urlFor('spread');
    const env = { COLONY_DATABASE_URL: url };
    const pair = [startWorker('wa', env, { slots: 2 }), startWorker('wb', env, { slots: 2 })];
    workers.push(...pair);
    await Promise.all(pair.map(joined));
    const repo = createUserRepo({ 'README.md': '# fleet\n', 'work/.keep': '' });
    folders.push(repo.dir);
    const home = mkdtempSync(join(tmpdir(), 'colony-owner-'));
    folders.push(home);
    const agents = 6;
    const run = await colony(runArgs(repo.dir, agents), {
      env: { ...NO_API_KEYS, COLONY_HOME: home, ...env },
      timeoutMs: 180_000,
    });
    expect(run.stderr).not.toMatch(/Error|failed/);
    expect(run.code).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    const runId = String(summary.runId);
    const events = await runEvents(url, runId);
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(new Set(placed.map((e) => e.agent)).size).toBe(agents);
    expect(new Set(placed.map((e) => e.data.worker))).toEqual(new Set(['wa', 'wb']));
    expect(placed.every((e) => e.data.epoch === 1)).toBe(true);
    const landed = events.filter((e) => e.kind === 'merge.landed');
    const requested = events.filter((e) => e.kind === 'merge.requested');
    expect(requested).toHaveLength(agents);
    expect(landed.map((e) => e.data.mr as number).sort()).toEqual(
      requested.map((e) => e.data.mr as number).sort(),
    );
    // The result in the user's repository has every peer's files.
    expect(filesOn(repo.dir, `colony/${runId}`)).toEqual(expectedFiles(agents));
  }, 240_000);
});
