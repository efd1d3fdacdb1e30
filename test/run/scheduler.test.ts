/**
 * The run scheduler against the real event log (Postgres): the concurrency bound, priorities, the
 * 1,001st start of one agent (thread_limit_error), the agent cap and abort — every refusal a
 * `limit.hit` event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import { DEFAULT_LIMITS, resolveLimits, Scheduler } from '../../src/run/scheduler.js';
import type { Store } from '../../src/store/index.js';
import type { EventLog } from '../../src/store/types.js';
import { openTestStore, testRunId } from '../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

async function limitHits(runId: string) {
  await store.log.flush(); // the scheduler does not wait for its concurrency notice to commit
  const events = await store.log.read(runId, { kinds: ['limit.hit'] });
  return events.map((e) => ({ agent: e.agent, ...(e as StoredEvent<'limit.hit'>).data }));
}

/** A promise resolved from outside, to hold a slot until the test lets go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('Scheduler', () => {
  it('runs at most `concurrency` at once and starts queued work by priority, FIFO within one', async () => {
    const runId = testRunId('sched');
    const scheduler = new Scheduler({
      runId,
      log: store.log,
      limits: { ...DEFAULT_LIMITS, concurrency: 2 },
    });
    const order: string[] = [];
    let active = 0;
    let peak = 0;
    const hold = gate();
    const job = (name: string) => async () => {
      order.push(name);
      active++;
      peak = Math.max(peak, active);
      await hold.opened;
      active--;
      return name;
    };
    const first = [scheduler.run('a', job('a')), scheduler.run('b', job('b'))];
    // Let a and b take both slots before queuing the rest.
    await new Promise((r) => setImmediate(r));
    const rest = [
      scheduler.run('low-1', job('low-1'), { priority: 0 }),
      scheduler.run('high-1', job('high-1'), { priority: 5 }),
      scheduler.run('low-2', job('low-2'), { priority: 0 }),
      scheduler.run('high-2', job('high-2'), { priority: 5 }),
    ];
    await new Promise((r) => setTimeout(r, 50));
    expect(scheduler.stats()).toMatchObject({ running: 2, queued: 4, started: 2 });
    hold.open();
    const results = await Promise.all([...first, ...rest]);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(peak).toBe(2);
    expect(order).toEqual(['a', 'b', 'high-1', 'high-2', 'low-1', 'low-2']);
    expect(scheduler.stats()).toMatchObject({ running: 0, queued: 0, started: 6 });
    // Queueing is logged once (not once per queued start).
    expect(await limitHits(runId)).toEqual([{ agent: null, limit: 'concurrency', value: 2, used: 2 }]);
  });

  it('refuses the 1,001st start of one agent with thread_limit_error and a limit.hit event', async () => {
    const runId = testRunId('sched');
    const scheduler = new Scheduler({ runId, log: store.log, limits: resolveLimits() });
    let ran = 0;
    for (let i = 0; i < 1000; i++) {
      const result = await scheduler.run('worker', async () => ++ran);
      expect(result.ok).toBe(true);
    }
    const over = await scheduler.run('worker', async () => ++ran);
    expect(ran).toBe(1000);
    expect(over.ok).toBe(false);
    if (over.ok) return;
    expect(over.error).toMatchObject({
      kind: 'thread_limit_error',
      limit: 'max_starts_per_agent',
      value: 1000,
    });
    // Another agent is unaffected.
    expect((await scheduler.run('other', async () => 1)).ok).toBe(true);
    expect(await limitHits(runId)).toEqual([
      { agent: 'worker', limit: 'max_starts_per_agent', value: 1000, used: 1000 },
    ]);
    expect(scheduler.stats()).toMatchObject({ started: 1001, refused: 1 });
  });

  it('counts starts made before a resume', async () => {
    const runId = testRunId('sched');
    const scheduler = new Scheduler({
      runId,
      log: store.log,
      limits: resolveLimits({ maxStartsPerAgent: 3 }),
      previousStarts: { lead: 3 },
    });
    const result = await scheduler.run('lead', async () => 'x');
    expect(result.ok ? null : result.error.kind).toBe('thread_limit_error');
  });

  it('refuses a new agent over maxAgents with agent_limit_error; known agents still start', async () => {
    const runId = testRunId('sched');
    const scheduler = new Scheduler({ runId, log: store.log, limits: resolveLimits({ maxAgents: 2 }) });
    expect((await scheduler.run('a', async () => 1)).ok).toBe(true);
    expect((await scheduler.run('b', async () => 1)).ok).toBe(true);
    const third = await scheduler.run('c', async () => 1);
    expect(third.ok ? null : third.error).toMatchObject({ kind: 'agent_limit_error', limit: 'max_agents' });
    expect((await scheduler.run('a', async () => 2)).ok).toBe(true);
    expect(await limitHits(runId)).toEqual([{ agent: 'c', limit: 'max_agents', value: 2, used: 2 }]);
  });

  it('an abort refuses queued starts (never running them) and later ones', async () => {
    const runId = testRunId('sched');
    const controller = new AbortController();
    const scheduler = new Scheduler({
      runId,
      log: store.log,
      limits: resolveLimits({ concurrency: 1 }),
      signal: controller.signal,
    });
    const hold = gate();
    const running = scheduler.run('a', () => hold.opened.then(() => 'a'));
    await new Promise((r) => setImmediate(r));
    let queuedRan = false;
    const queued = scheduler.run('b', async () => {
      queuedRan = true;
    });
    await new Promise((r) => setTimeout(r, 30));
    controller.abort();
    const q = await queued;
    expect(q.ok ? null : q.error.kind).toBe('aborted');
    hold.open();
    expect(await running).toEqual({ ok: true, value: 'a' });
    const later = await scheduler.run('c', async () => 1);
    expect(later.ok ? null : later.error.kind).toBe('aborted');
    expect(queuedRan).toBe(false);
    expect(scheduler.stats()).toMatchObject({ running: 0, queued: 0 });
  });

  it('keeps FIFO order when the concurrency notice commits late (the first queued start does not wait for it)', async () => {
    const runId = testRunId('sched');
    // The real log, with its appends held until the test lets go (a slow commit, made deterministic).
    const commits = gate();
    const slowLog: EventLog = Object.assign(Object.create(store.log) as EventLog, {
      append: ((event) => commits.opened.then(() => store.log.append(event))) as EventLog['append'],
    });
    const scheduler = new Scheduler({ runId, log: slowLog, limits: { ...DEFAULT_LIMITS, concurrency: 1 } });
    const order: string[] = [];
    const job = (name: string) => async () => {
      order.push(name);
      return name;
    };
    const hold = gate();
    const first = scheduler.run('a', () => hold.opened.then(() => 'a'));
    await new Promise((r) => setImmediate(r));
    const queued = [scheduler.run('b', job('b')), scheduler.run('c', job('c'))];
    hold.open();
    await first;
    await new Promise((r) => setTimeout(r, 20));
    // Before the fix, b held a's slot but waited for the notice's commit, so nothing ran here.
    expect(order).toEqual(['b', 'c']);
    commits.open();
    await Promise.all(queued);
    await new Promise((r) => setImmediate(r)); // the held append reaches the real log
    expect(await limitHits(runId)).toEqual([{ agent: null, limit: 'concurrency', value: 1, used: 1 }]);
  });

  it('hands a slot over when the work calls release() before it returns, once', async () => {
    const scheduler = new Scheduler({
      runId: testRunId('sched'),
      log: store.log,
      limits: resolveLimits({ concurrency: 1 }),
    });
    const tail = gate();
    const events: string[] = [];
    const a = scheduler.run('a', async (release) => {
      events.push('a works');
      release();
      release(); // a second call (and the one when `a` returns) must not free another slot
      await tail.opened; // e.g. committing its last events
      events.push('a returns');
      return 'a';
    });
    const bHold = gate();
    const b = scheduler.run('b', async () => {
      events.push('b starts');
      await bHold.opened;
      events.push('b returns');
      return 'b';
    });
    const c = scheduler.run('c', async () => {
      events.push('c starts');
      return 'c';
    });
    await new Promise((r) => setTimeout(r, 20));
    // b got a's slot while a is still running; c waits for a slot (a's return frees none).
    expect(events).toEqual(['a works', 'b starts']);
    tail.open();
    expect(await a).toEqual({ ok: true, value: 'a' });
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual(['a works', 'b starts', 'a returns']);
    expect(scheduler.stats()).toMatchObject({ running: 1, queued: 1 });
    bHold.open();
    expect(await Promise.all([b, c])).toEqual([
      { ok: true, value: 'b' },
      { ok: true, value: 'c' },
    ]);
    expect(events).toEqual(['a works', 'b starts', 'a returns', 'b returns', 'c starts']);
    expect(scheduler.stats()).toMatchObject({ running: 0, queued: 0, started: 3 });
  });

  it('propagates an error thrown by the work and frees its slot', async () => {
    const scheduler = new Scheduler({
      runId: testRunId('sched'),
      log: store.log,
      limits: resolveLimits({ concurrency: 1 }),
    });
    await expect(scheduler.run('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await scheduler.run('a', async () => 2)).toEqual({ ok: true, value: 2 });
  });
});
