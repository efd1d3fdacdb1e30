/**
 * A worker declared gone while alive (paused past the heartbeat limit, then resumed): its sessions go
 * to the other worker, and the paused one must get its DBOS slots back — a fenced session that never
 * settled held its slot for good, so a worker declared gone under load never ran anything again.
 */
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

// Long sessions (20 files at 1 s per step): the other worker is still busy with its own peer when
// the paused one comes back, so the queued sessions wait for a free slot.
const FILES = 20;
let db: DebianPostgres;
let fake: FakeProvider;
const workers: WorkerProcess[] = [];
const folders: string[] = [];

beforeAll(async () => {
  [db, fake] = await Promise.all([
    startDebianPostgres(),
    startFakeProvider({ policy: fleetPeersPolicy(FILES), latencyMs: 1000 }),
  ]);
});

afterAll(async () => {
  for (const w of workers) {
    if (w.child.exitCode !== null) continue;
    w.child.kill('SIGCONT');
    w.child.kill('SIGKILL');
  }
  await Promise.all(workers.map((w) => w.closed));
  await fake?.close();
  await db?.stop();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('a fleet worker declared gone while alive', () => {
  it('gets its slots back when it resumes: it runs sessions again and the run completes', async () => {
    await db.sql('CREATE DATABASE gone_alive');
    const url = db.urlFor('gone_alive');
    const env = { COLONY_DATABASE_URL: url };
    const [paused, other] = (['wp', 'wo'] as const).map((name) => startWorker(name, env, { slots: 1 })) as [
      WorkerProcess,
      WorkerProcess,
    ];
    workers.push(paused, other);
    await Promise.all([paused, other].map(joined));
    const repo = createUserRepo({ 'README.md': '# fleet\n', 'work/.keep': '' });
    const home = mkdtempSync(join(tmpdir(), 'colony-owner-'));
    folders.push(repo.dir, home);
    const agents = 3;
    const running = colony(
      [
        'run',
        '--workers',
        '--topology',
        'peers',
        '--agents',
        String(agents),
        '--repo',
        repo.dir,
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
      ],
      { env: { ...NO_API_KEYS, COLONY_HOME: home, ...env }, timeoutMs: 240_000 },
    );
    let runId = '';
    await until(async () => {
      const res = await db.sql('SELECT run_id FROM colony.runs LIMIT 1', 'gone_alive').catch(() => null);
      runId = (res?.rows[0]?.run_id as string | undefined) ?? '';
      if (!runId) return false;
      const events = await runEvents(url, runId);
      return events.some((e) => e.kind === 'agent.placed' && e.data.worker === 'wp');
    }, 'a session on the worker to pause');
    paused.child.kill('SIGSTOP');
    await until(
      async () => (await runEvents(url, runId)).some((e) => e.kind === 'worker.lost'),
      'the paused worker declared gone',
      60_000,
    );
    paused.child.kill('SIGCONT');
    const run = await running;
    expect(run.code, `${run.stderr.slice(-2000)}\n${paused.stderr()}\n${other.stderr()}`).toBe(0);
    expect(lastJsonLine(run.stdout).status).toBe('succeeded');
    const events = await runEvents(url, runId);
    const lost = events.filter((e) => e.kind === 'worker.lost');
    expect(lost.map((e) => [e.data.worker, e.data.by])).toEqual([['wp', 'wo']]);
    const lostAt = lost[0]?.seq ?? 0;
    // Back from the pause, it ran a session again: its slot was freed by its fenced session's end.
    const placedAfter = events.filter(
      (e) => e.kind === 'agent.placed' && e.data.worker === 'wp' && e.seq > lostAt,
    );
    expect(placedAfter.length).toBeGreaterThan(0);
    expect(paused.stderr()).toContain('was declared gone');
    // Every peer finished once, done.
    const finished = events.filter((e) => e.kind === 'agent.finished');
    expect(finished.map((e) => [e.agent, e.data.status]).sort()).toEqual(
      Array.from({ length: agents }, (_, i) => [`peer-${i + 1}`, 'done']).sort(),
    );
  }, 240_000);
});
