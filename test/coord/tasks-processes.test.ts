/**
 * The task board across processes: claim_next from three child processes at once grants every task
 * exactly once; and a board with dependencies worked through by 3 × 8 agents (some giving up) ends
 * with every task done exactly once, each after its predecessors, with no double grant in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Coordination,
  checkGrantHistory,
  createCoordination,
  type TaskInput,
} from '../../src/coord/index.js';
import type { StoredEvent } from '../../src/core/events.js';
import { seededRandom } from '../../src/core/random.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { type CoordChild, ensureBuilt, spawnCoordChild } from './child.js';

let store: Store;
let coord: Coordination;
let children: CoordChild[] = [];

beforeAll(async () => {
  ensureBuilt();
  store = await openTestStore();
  coord = await createCoordination(store);
  children = Array.from({ length: 3 }, () => spawnCoordChild());
  await Promise.all(children.map((c) => c.send({ cmd: 'open', leaseMs: 60_000, heartbeatMs: 10_000 })));
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.send({ cmd: 'close' }).catch(() => {})));
  await coord.close();
  await store.close();
});

const file = (i: number) => `files/f${String(i).padStart(5, '0')}.txt`;

describe('task board across processes', () => {
  it('3 processes × 100 concurrent claim_next on 200 tasks: each task granted exactly once', async () => {
    const runId = testRunId('tasksproc');
    const added = await coord.tasks.add(
      runId,
      'planner',
      Array.from({ length: 200 }, (_, i) => ({ title: `task ${i}`, scope: file(i) })),
    );
    expect(added.ok).toBe(true);
    const replies = await Promise.all(
      children.map((child, p) =>
        child.send({ cmd: 'next', runId, agents: Array.from({ length: 100 }, (_, i) => `p${p}-a${i}`) }),
      ),
    );
    for (const r of replies) expect(r.errors).toEqual([]);
    const granted = replies.flatMap((r) => r.granted as number[]);
    expect(granted.length).toBe(200);
    expect(new Set(granted).size).toBe(200);
    expect(replies.reduce((n, r) => n + (r.none as number), 0)).toBe(100);
    const events = await store.log.read(runId);
    expect(checkGrantHistory(events)).toMatchObject({ ok: true, grants: 200, violations: [], anomalies: [] });
    expect((await store.log.verify(runId)).ok).toBe(true);
  });

  it('a dependency graph worked through by 24 agents: every task done once, after its predecessors', async () => {
    const runId = testRunId('tasksdag');
    const random = seededRandom(7);
    // 60 tasks; each depends on up to 3 earlier ones; a few share a folder with others (overlaps).
    const tasks: TaskInput[] = Array.from({ length: 60 }, (_, i) => ({
      title: `step ${i}`,
      key: `step ${i}`,
      scope: i % 10 === 9 ? `src/m${i % 3}/` : `src/m${i % 3}/f${i}.ts`,
      after:
        i === 0 ? [] : Array.from({ length: Math.floor(random() * 4) }, () => 1 + Math.floor(random() * i)),
    }));
    const added = await coord.tasks.add(runId, 'planner', tasks);
    expect(added.ok && added.value.every((t) => !t.existing)).toBe(true);
    const replies = await Promise.all(
      children.map((child, p) =>
        child.send({
          cmd: 'board',
          runId,
          seed: 100 + p,
          failRate: 0.15,
          agents: Array.from({ length: 8 }, (_, i) => `p${p}-a${i}`),
        }),
      ),
    );
    for (const r of replies) expect(r.errors).toEqual([]);
    const done = replies.flatMap((r) => r.done as number[]);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(replies.reduce((n, r) => n + (r.gaveUp as number), 0)).toBeGreaterThan(0);

    const events = await store.log.read(runId);
    const history = checkGrantHistory(events);
    expect(history).toMatchObject({ ok: true, violations: [], anomalies: [] });
    const doneAt = new Map<number, number>();
    for (const e of events.filter((x) => x.kind === 'task.done') as StoredEvent<'task.done'>[]) {
      expect(doneAt.has(e.data.id), `task ${e.data.id} done twice`).toBe(false);
      doneAt.set(e.data.id, e.seq);
    }
    const claimedAt = new Map<number, number>();
    for (const e of events.filter((x) => x.kind === 'task.claimed') as StoredEvent<'task.claimed'>[]) {
      claimedAt.set(e.data.id, Math.min(claimedAt.get(e.data.id) ?? Number.POSITIVE_INFINITY, e.seq));
    }
    tasks.forEach((task, i) => {
      for (const pred of task.after ?? []) {
        // Never even claimed before every predecessor was done.
        expect(claimedAt.get(i + 1)!, `task ${i + 1} after ${String(pred)}`).toBeGreaterThan(
          doneAt.get(pred as number)!,
        );
      }
    });
    expect(await coord.tasks.counts(runId, 'x')).toMatchObject({
      ok: true,
      value: { total: 60, open: 0, done: 60 },
    });
  });
});
