/**
 * Per-server run slots on the real embedded Postgres: 10 runs hold the 10 slots (each on its own
 * connection), the 11th fails clearly with wait off and, with wait on, waits until one finishes; a
 * slot of a process killed with SIGKILL is reclaimed; executeRun logs `limit.hit runs_per_server` and
 * finishes a refused run. Each test uses its own scope, so runs of other test files do not count.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import type { StoredEvent } from '../../src/core/events.js';
import { createProvider } from '../../src/model/index.js';
import { acquireRunSlot, listRunSlots, type RunSlot } from '../../src/run/run-slots.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

const scopeFor = (label: string) => `test-${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

describe('run slots', () => {
  it('the 11th run fails clearly without wait, and with wait starts only when one of the 10 finishes', async () => {
    const scope = scopeFor('eleven');
    const held: RunSlot[] = [];
    for (let i = 1; i <= 10; i++) {
      const slot = await acquireRunSlot({
        connection: store.connection,
        runId: `run-${i}`,
        maxRuns: 10,
        wait: false,
        scope,
      });
      if (!slot.ok) throw new Error(slot.error.message);
      held.push(slot);
    }
    expect(held.map((s) => s.slot).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await listRunSlots(store.connection, 10, scope)).map((h) => h.runId)).toHaveLength(10);

    const refused = await acquireRunSlot({
      connection: store.connection,
      runId: 'run-11',
      maxRuns: 10,
      wait: false,
      scope,
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.kind).toBe('runs_per_server');
      expect(refused.error.message).toMatch(/limit of 10 concurrent runs/);
      expect(refused.error.message).toMatch(/--max-runs N or COLONY_MAX_RUNS=N/);
      expect(refused.error.message).toContain('run-3');
    }

    const events: string[] = [];
    let waitedFor: string[] = [];
    const eleventh = acquireRunSlot({
      connection: store.connection,
      runId: 'run-11',
      maxRuns: 10,
      wait: true,
      scope,
      pollMs: 60_000, // only the release's NOTIFY can wake it within the test's time
      onWait: (holders) => {
        waitedFor = holders.map((h) => h.runId);
        events.push('waiting');
      },
    }).then((result) => {
      events.push('granted');
      return result;
    });
    while (!events.includes('waiting')) await new Promise((r) => setTimeout(r, 20));
    expect(waitedFor).toHaveLength(10);
    // Nothing frees a slot yet: the 11th is still waiting after another round trip to the server.
    await listRunSlots(store.connection, 10, scope);
    expect(events).toEqual(['waiting']);

    events.push('released');
    await held[3]?.release();
    const granted = await eleventh;
    expect(events).toEqual(['waiting', 'released', 'granted']);
    expect(granted.ok && granted.slot).toBe(4);
    if (granted.ok) await granted.release();
    await Promise.all(held.map((s) => s.release()));
    expect(await listRunSlots(store.connection, 10, scope)).toEqual([]);
  });

  it('reclaims the slot of a process killed with SIGKILL', async () => {
    const scope = scopeFor('kill');
    // A real second process (the built module: npm test builds dist/ first) holds the only slot.
    const module = pathToFileURL(
      join(import.meta.dirname, '..', '..', 'dist', 'src', 'run', 'run-slots.js'),
    ).href;
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { acquireRunSlot } = await import(${JSON.stringify(module)});
         const s = await acquireRunSlot({ connection: JSON.parse(process.env.CONN), runId: 'doomed', maxRuns: 1, wait: false, scope: process.env.SCOPE });
         process.stdout.write(s.ok ? 'held\\n' : 'refused ' + s.error.message + '\\n');
         setInterval(() => {}, 1000);`,
      ],
      {
        env: { ...process.env, CONN: JSON.stringify(store.connection), SCOPE: scope },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const first = await new Promise<string>((resolve) =>
      child.stdout?.once('data', (d: Buffer) => resolve(String(d))),
    );
    expect(first.trim()).toBe('held');
    expect((await listRunSlots(store.connection, 1, scope)).map((h) => h.runId)).toEqual(['doomed']);
    const busy = await acquireRunSlot({
      connection: store.connection,
      runId: 'next',
      maxRuns: 1,
      wait: false,
      scope,
    });
    expect(busy.ok).toBe(false);

    child.kill('SIGKILL');
    // Postgres drops the dead process's session (and its lock); the waiter's poll picks the slot up.
    const next = await acquireRunSlot({
      connection: store.connection,
      runId: 'next',
      maxRuns: 1,
      wait: true,
      scope,
      pollMs: 50,
    });
    expect(next.ok && next.slot).toBe(1);
    expect((await listRunSlots(store.connection, 1, scope)).map((h) => h.runId)).toEqual(['next']);
    if (next.ok) await next.release();
  });

  it('executeRun: a refused run logs limit.hit runs_per_server and finishes failed with the message', async () => {
    const scope = scopeFor('execute');
    const blocker = await acquireRunSlot({
      connection: store.connection,
      runId: 'blocker',
      maxRuns: 1,
      wait: false,
      scope,
    });
    if (!blocker.ok) throw new Error(blocker.error.message);
    const repo = createUserRepo({ 'README.md': '# r\n' }, 'colony-slots-');
    const model = {
      id: 'openai-chat:unused',
      protocol: 'openai-chat' as const,
      name: 'unused',
      contextWindow: 1000,
      maxOutput: 100,
      prices: null,
    };
    const spec: RunSpec = {
      runId: testRunId('slots'),
      topology: 'solo',
      repo: repo.dir,
      goal: 'never starts',
      baseRef: 'HEAD',
      baseCommit: repo.base,
      model: model.id,
      customModels: [],
      maxSteps: 5,
      profile: 'explore',
      stream: false,
      modelTimeoutMs: 1000,
      maxRetries: 0,
      bashTimeoutS: 10,
    };
    await recordNewRun(store, spec);
    const result = await executeRun({
      store,
      spec,
      // Never called: the run is refused before any agent starts.
      provider: createProvider({ ...model, baseUrl: 'http://127.0.0.1:9/v1' }, { apiKey: 'k' }),
      env: process.env,
      signal: new AbortController().signal,
      resumed: false,
      runSlots: { maxRuns: 1, wait: false, scope },
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/limit of 1 concurrent runs \(blocker\)/);
    const events = await store.log.read(spec.runId);
    const hit = events.find((e) => e.kind === 'limit.hit') as StoredEvent<'limit.hit'> | undefined;
    expect(hit?.data).toEqual({ limit: 'runs_per_server', value: 1, used: 1 });
    const finished = events.find((e) => e.kind === 'run.finished') as StoredEvent<'run.finished'> | undefined;
    expect(finished?.data.status).toBe('failed');
    expect(events.some((e) => e.kind === 'agent.started')).toBe(false);
    expect((await store.runs.getRun(spec.runId))?.status ?? null).toBe('failed');
    await blocker.release();
  });
});
