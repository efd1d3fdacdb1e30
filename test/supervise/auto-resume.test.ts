/**
 * Runs that heal themselves (issue 30): a single-process run killed with -9 is finished by a
 * `colony serve` started afterwards, with no command typed; two `colony supervise` racing for one
 * killed run resume it once (the run lock decides; run.recovered is logged once); a run started with
 * --no-auto-resume is left for `colony resume`. The built CLI against a scripted agent on the fake
 * provider. The file has a COLONY_HOME (an embedded Postgres) of its own: a supervisor looks at every
 * run of its store, and other test files' runs (some killed on purpose) are not this file's to resume.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { ModelRequest } from '../../src/model/types.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { COLONY_BIN, fakeModelFlags, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

/** Tool turns before the agent answers: long enough to be killed in the middle. */
const TOOL_TURNS = 4;
let fake: FakeProvider;
let store: Store;
let home: string;
const children: ChildProcess[] = [];
/** This file's processes: its own store, supervision on (test/global-setup.ts turns it off). */
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeProvider({
    policy: (request: ModelRequest) =>
      request.messages.filter((m) => m.role === 'assistant').length < TOOL_TURNS
        ? { toolCalls: [{ name: 'ls', arguments: {} }] }
        : { text: 'listed the folder' },
    latencyMs: 400,
  });
  home = mkdtempSync(join(tmpdir(), 'colony-supervise-test-'));
  env = { ...process.env, ...NO_API_KEYS, COLONY_HOME: home, COLONY_AUTO_RESUME: '' };
  delete env.COLONY_DATABASE_URL;
  store = await openTestStore({ home });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await store?.close();
  await fake?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

async function until<T>(check: () => Promise<T | null> | T | null, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts a run, waits for its first model response, kills it with -9; returns its id. */
async function killedRun(extra: string[] = []): Promise<string> {
  const repo = createUserRepo({ 'README.md': '# heal\n' }, 'colony-heal-').dir;
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
    ...extra,
  ]);
  const runId = await until(() => /"runId":"([^"]+)"/.exec(run.output())?.[1] ?? null);
  await until(() => (run.output().includes('"kind":"model.response"') ? true : null));
  const closed = new Promise((resolve) => run.child.once('close', resolve));
  run.child.kill('SIGKILL');
  await closed;
  return runId;
}

function start(args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [COLONY_BIN, ...args], { env });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  await closed;
}

async function finished(runId: string): Promise<StoredEvent[]> {
  return until(async () => {
    const events = await store.log.read(runId);
    return events.some((e) => e.kind === 'run.finished') ? events : null;
  });
}

function ofKind<K extends StoredEvent['kind']>(events: StoredEvent[], kind: K): StoredEvent<K>[] {
  return events.filter((e) => e.kind === kind) as StoredEvent<K>[];
}

describe('a run whose process died', () => {
  it('is finished by a colony serve started afterwards, with no command typed', async () => {
    const runId = await killedRun();
    const serve = start(['serve', '--port', '0']);
    const events = await finished(runId);
    await stop(serve.child);

    expect(ofKind(events, 'run.finished')[0]?.data).toMatchObject({ status: 'succeeded' });
    const recovered = ofKind(events, 'run.recovered');
    expect(recovered).toHaveLength(1);
    expect(String(recovered[0]?.data.by)).toMatch(/^serve@/);
    expect(Number(recovered[0]?.data.afterMs)).toBeGreaterThanOrEqual(5_000);
    expect(ofKind(events, 'run.resumed')).toHaveLength(1);
    // Every completed model call was replayed, not made again: one response per turn in the log.
    expect(ofKind(events, 'model.response')).toHaveLength(TOOL_TURNS + 1);
    expect(serve.output()).toContain(`supervise: resuming run ${runId}`);
  }, 180_000);

  it('is resumed once when two supervisors race for it', async () => {
    const runId = await killedRun();
    const args = ['supervise', '--interval', '200ms', '--grace', '1s', '--json'];
    const [first, second] = [start(args), start(args)];
    const events = await finished(runId).catch((error) => {
      throw new Error(`${error}; the supervisors said: ${first.output()} | ${second.output()}`);
    });
    await Promise.all([stop(first.child), stop(second.child)]);

    expect(ofKind(events, 'run.finished')[0]?.data).toMatchObject({ status: 'succeeded' });
    expect(ofKind(events, 'run.recovered')).toHaveLength(1);
    expect(ofKind(events, 'run.resumed')).toHaveLength(1);
    expect(ofKind(events, 'model.response')).toHaveLength(TOOL_TURNS + 1);
  }, 180_000);

  it('is left for colony resume when it was started with --no-auto-resume', async () => {
    const runId = await killedRun(['--no-auto-resume']);
    const supervisor = start(['supervise', '--interval', '200ms', '--grace', '1s', '--json']);
    const line = await until(
      () =>
        supervisor
          .output()
          .split('\n')
          .find((l) => l.includes(`"runId":"${runId}"`)) ?? null,
    );
    expect(JSON.parse(line)).toEqual({
      runId,
      action: 'skip',
      reason: `started with --no-auto-resume: colony resume ${runId} finishes it`,
    });
    await stop(supervisor.child);
    const events = await store.log.read(runId);
    expect(ofKind(events, 'run.resumed')).toHaveLength(0);
    expect(ofKind(events, 'run.finished')).toHaveLength(0);
  }, 180_000);
});
