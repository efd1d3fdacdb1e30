/**
 * The owner of a `--workers` run prints its agents' lines though they run on other processes: each
 * peer's placement on the worker, its step lines and its end, once each, as `colony run` prints an
 * in-process agent's (and, with --json, their events). Real fleet: an external Postgres (Debian's),
 * one `colony worker`, the built CLI as the owner, the fake provider.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { joined, startWorker, stopFleetParts, type WorkerProcess } from '../fleet/fleet-harness.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { type DebianPostgres, startDebianPostgres } from '../helpers/debian-postgres.js';
import { createUserRepo } from '../helpers/user-repo.js';

// Each peer lists the folder twice, then answers.
const policy: ScriptedPolicy = (request) => {
  const steps = request.messages.filter((m) => m.role === 'assistant').length;
  return steps < 2 ? { toolCalls: [{ name: 'ls', arguments: {} }] } : { text: 'looked around' };
};

let db: DebianPostgres;
let fake: FakeProvider;
const workers: WorkerProcess[] = [];
const folders: string[] = [];

beforeAll(async () => {
  [db, fake] = await Promise.all([startDebianPostgres(), startFakeProvider({ policy })]);
});

afterAll(() => stopFleetParts({ workers, servers: [fake], db, folders }));

async function fleetRun(env: NodeJS.ProcessEnv, json: boolean) {
  const repo = createUserRepo({ 'README.md': '# fleet lines\n' });
  const home = mkdtempSync(join(tmpdir(), 'colony-owner-'));
  folders.push(repo.dir, home);
  const args = [
    'run',
    '--workers',
    '--topology',
    'peers',
    '--agents',
    '2',
    '--repo',
    repo.dir,
    '--goal',
    'look',
  ];
  const run = await colony(
    [
      ...args,
      ...fakeModelFlags(fake.url),
      '--verify',
      'true',
      '--sandbox',
      'off',
      ...(json ? ['--json'] : []),
    ],
    { env: { ...NO_API_KEYS, COLONY_HOME: home, ...env }, timeoutMs: 180_000 },
  );
  expect(run.code, `${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
  return run.stdout;
}

describe('the owner of a --workers run', () => {
  it('prints the step lines of the agents running on workers, once each (and their events with --json)', async () => {
    await db.sql('CREATE DATABASE live_lines');
    const env = { COLONY_DATABASE_URL: db.urlFor('live_lines') };
    const worker = startWorker('wl1', env, { slots: 2 });
    workers.push(worker);
    await joined(worker);

    const out = await fleetRun(env, false);
    for (const peer of ['peer-1', 'peer-2']) {
      const lines = out.split('\n').filter((l) => l.includes(`[${peer}] `));
      expect(
        lines.filter((l) => / placed on worker wl1 /.test(l)),
        out,
      ).toHaveLength(1);
      for (const step of [1, 2])
        expect(
          lines.filter((l) => new RegExp(`step ${step} → ls`).test(l)),
          out,
        ).toHaveLength(1);
      expect(
        lines.filter((l) => /step 3 answer: looked around/.test(l)),
        out,
      ).toHaveLength(1);
      expect(
        lines.filter((l) => /agent finished: done/.test(l)),
        out,
      ).toHaveLength(1);
    }
    // The summary still comes last.
    expect(out.trimEnd().split('\n').at(-1)).not.toMatch(/^\d\d:\d\d:\d\d /);

    const json = await fleetRun(env, true);
    const events = json
      .trim()
      .split('\n')
      .slice(0, -1)
      .map((l) => JSON.parse(l) as { seq: number; agent: string | null; kind: string });
    const steps = events.filter((e) => e.kind === 'model.response');
    expect(steps.filter((e) => e.agent === 'peer-1')).toHaveLength(3);
    expect(steps.filter((e) => e.agent === 'peer-2')).toHaveLength(3);
    expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
    expect(lastJsonLine(json)).toMatchObject({ status: 'succeeded' });
  }, 300_000);
});
