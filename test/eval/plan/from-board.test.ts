/**
 * The task graph of a task board, from the events the real board (src/coord, real Postgres) writes
 * when tasks are added with predecessors, claimed with claim_next and released; and the store errors
 * `--check` turns into messages (no such run, still running, no tasks).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Coordination, createCoordination } from '../../../src/coord/index.js';
import { loadRunGraph, planRun, taskGraphOf } from '../../../src/eval/plan/index.js';
import type { Store } from '../../../src/store/index.js';
import { openTestStore, testRunId } from '../../helpers/db.js';

let store: Store;
let coord: Coordination;

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store, { leaseMs: 60_000 });
});
afterAll(async () => {
  await coord.close();
  await store.close();
});

async function claimNext(runId: string, agent: string): Promise<string> {
  const r = await coord.tasks.claimNext(runId, agent);
  if (!r.ok) throw new Error(r.error);
  if (r.value.status !== 'granted') throw new Error(`${agent}: nothing ready`);
  return r.value.task.scope;
}

async function release(runId: string, agent: string, scope: string, outcome: string): Promise<void> {
  const r = await coord.claims.release({ runId, agent, scope, outcome });
  if (!r.ok) throw new Error(r.error);
}

describe('the task graph of a task board', () => {
  it('has the claimed tasks with their predecessors, last claimant and the lost attempt', async () => {
    const runId = testRunId('plan-board');
    const added = await coord.tasks.add(runId, 'planner', [
      { title: 'lexer', scope: 'src/lexer/' },
      { title: 'parser', scope: 'src/parser/', after: ['src/lexer/'] },
      { title: 'docs', detail: 'write the README', after: [1, 2] },
      { title: 'cli', scope: 'src/cli/' },
      { title: 'never claimed', scope: 'src/later/', after: [3] },
    ]);
    expect(added.ok).toBe(true);
    const lexer = await claimNext(runId, 'a');
    const cli = await claimNext(runId, 'b');
    // b gives cli up (not done): it goes back on the board and a takes it later.
    await release(runId, 'b', cli, 'gave up: too hard');
    await release(runId, 'a', lexer, 'done: landed');
    const parser = await claimNext(runId, 'b');
    await release(runId, 'b', parser, 'done: landed');
    const docs = await claimNext(runId, 'b');
    const cliAgain = await claimNext(runId, 'a');
    await release(runId, 'a', cliAgain, 'done: landed');
    await release(runId, 'b', docs, 'done');

    const events = await store.log.read(runId);
    const graph = taskGraphOf(runId, events);
    expect(graph.source).toBe('board');
    const byId = new Map(graph.tasks.map((t) => [t.id, t]));
    expect([...byId.keys()].sort()).toEqual(['#1', '#2', '#3', '#4']);
    expect(byId.get('#1')).toMatchObject({ agent: 'a', deps: [] });
    expect(byId.get('#2')).toMatchObject({ agent: 'b', deps: ['#1'] });
    expect(byId.get('#3')?.deps.sort()).toEqual(['#1', '#2']);
    // Two claims (b, then a): the last claimant runs it; both claims' time counts.
    expect(byId.get('#4')?.agent).toBe('a');
    for (const t of graph.tasks) expect(t.durationMs).toBeGreaterThanOrEqual(0);
    expect(graph.measured.activeMs).not.toBeNull();

    const report = planRun(graph, { sizes: [1, 2], seed: 1, samples: 20, sigma: 0.5 });
    expect(report.source).toBe('board');
    expect(report.tasks).toBe(4);
    // #1 → #2 → #3 is a chain: the span is at least its length (and #4 stands alone).
    const chain = ['#1', '#2', '#3'].reduce((sum, id) => sum + (byId.get(id)?.durationMs ?? 0), 0);
    expect(report.spanMs).toBeGreaterThanOrEqual(chain);
    expect(report.spanMs).toBe(Math.max(chain, byId.get('#4')?.durationMs ?? 0));
    expect(report.rows[0]?.scheduleMs).toBeCloseTo(report.workMs, 6);
  });

  it('reports a run that does not exist, is still running or has no tasks', async () => {
    const missing = await loadRunGraph(store, testRunId('plan-none'), { finished: true, tasks: true });
    expect(missing).toMatchObject({ ok: false, reason: 'missing' });
    if (!missing.ok) expect(missing.error).toMatch(/no such run/);

    const running = testRunId('plan-running');
    expect(
      (await store.runs.createRun({ runId: running, topology: 'peers', goal: 'g', repo: '/r' })).ok,
    ).toBe(true);
    const stillRunning = await loadRunGraph(store, running, { finished: true, tasks: true });
    expect(stillRunning).toMatchObject({ ok: false, reason: 'running' });
    if (!stillRunning.ok) expect(stillRunning.error).toMatch(/still running/);
    // A plan (not a check) of a running run is allowed; it has no tasks yet.
    const partial = await loadRunGraph(store, running, { finished: false, tasks: false });
    expect(partial.ok && partial.graph.tasks.length).toBe(0);

    const empty = testRunId('plan-empty');
    const created = await store.runs.createRun({
      runId: empty,
      topology: 'solo',
      goal: 'g',
      repo: '/r',
      status: 'failed',
    });
    expect(created.ok).toBe(true);
    const noTasks = await loadRunGraph(store, empty, { finished: true, tasks: true });
    expect(noTasks).toMatchObject({ ok: false, reason: 'empty' });
    if (!noTasks.ok) expect(noTasks.error).toMatch(/no tasks/);
  });
});
