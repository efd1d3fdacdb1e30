/**
 * The run scheduler's rank (a workflow DAG step's remaining critical path) and hold: rank breaks
 * ties within a priority and never beats a higher priority; while held, a freed slot and free slots
 * wait, then the best waiters get them. In-memory log: no Postgres needed.
 */
import { describe, expect, it } from 'vitest';
import { resolveLimits, Scheduler } from '../../src/run/scheduler.js';
import type { EventLog } from '../../src/store/types.js';

const log = {
  append: async (event: unknown) => event,
  appendMany: async (events: unknown[]) => events,
  read: async () => [],
  verify: async () => ({ ok: true }),
  flush: async () => {},
} as unknown as EventLog;

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Scheduler rank and hold', () => {
  it('orders waiting starts by priority, then rank, then arrival', async () => {
    const scheduler = new Scheduler({ runId: 'r', log, limits: resolveLimits({ concurrency: 1 }) });
    const order: string[] = [];
    const first = gate();
    const job = (name: string) => async () => {
      order.push(name);
    };
    const busy = scheduler.run('busy', () => first.opened);
    const waiting = [
      scheduler.run('low-rank', job('low-rank'), { rank: 1 }),
      scheduler.run('no-rank', job('no-rank')),
      scheduler.run('high-rank', job('high-rank'), { rank: 4 }),
      scheduler.run('high-rank-2', job('high-rank-2'), { rank: 4 }),
      scheduler.run('priority', job('priority'), { priority: 1 }),
    ];
    first.open();
    await Promise.all([busy, ...waiting]);
    expect(order).toEqual(['priority', 'high-rank', 'high-rank-2', 'low-rank', 'no-rank']);
  });

  it('while held, grants nothing; when the hold ends, the best waiters take the free slots', async () => {
    const scheduler = new Scheduler({ runId: 'r', log, limits: resolveLimits({ concurrency: 2 }) });
    const order: string[] = [];
    const job = (name: string) => async () => {
      order.push(name);
    };
    const end = scheduler.hold();
    const runs = [
      scheduler.run('first', job('first'), { rank: 1 }),
      scheduler.run('second', job('second'), { rank: 1 }),
      scheduler.run('best', job('best'), { rank: 3 }),
    ];
    await settle();
    expect(order).toEqual([]);
    expect(scheduler.stats()).toMatchObject({ running: 0, queued: 3 });
    end();
    end(); // a second call does nothing
    await Promise.all(runs);
    expect(order).toEqual(['best', 'first', 'second']);
    expect(scheduler.stats()).toMatchObject({ running: 0, queued: 0, started: 3 });
  });

  it('keeps a slot freed during a hold for the best waiter that arrives before the hold ends', async () => {
    const scheduler = new Scheduler({ runId: 'r', log, limits: resolveLimits({ concurrency: 1 }) });
    const order: string[] = [];
    const job = (name: string) => async () => {
      order.push(name);
    };
    const first = gate();
    const busy = scheduler.run('busy', () => first.opened);
    const early = scheduler.run('early', job('early'), { rank: 1 });
    await settle();
    const end = scheduler.hold();
    first.open();
    await busy;
    await settle();
    expect(order).toEqual([]);
    const late = scheduler.run('late', job('late'), { rank: 2 });
    end();
    await Promise.all([early, late]);
    expect(order).toEqual(['late', 'early']);
  });
});
