/**
 * The task board on the API (src/server/api-tasks.ts) on a real store: reading the board, a person
 * adding, editing and moving tasks with the token, the refusals (401 without it, 400 for bad input,
 * 409 for a held or done task), the events in the run's log, that agents see the person's order
 * (claim_next takes the first ready task of the board), and that a person's task wakes a
 * `claim_next {wait}` of another coordination (another process's, through NOTIFY) at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Coordination, createCoordination } from '../../src/coord/index.js';
import type { BoardRow } from '../../src/coord/task-board.js';
import { createClaimNextTool } from '../../src/coord/tools/claim-next.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { request } from './http-client.js';

const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuv';
let store: Store;
let server: RunningServer;
/** The agents' side: as the run's process has it. */
let coord: Coordination;

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 50 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
});

afterAll(async () => {
  await server?.close();
  await coord?.close();
  await store?.close();
});

async function newRun(name: string): Promise<string> {
  const runId = testRunId(name);
  const created = await store.runs.createRun({ runId, topology: 'peers', goal: 'g', repo: '/r' });
  if (!created.ok) throw new Error(created.error);
  return runId;
}

const post = (runId: string, body: unknown, token: string | null = TOKEN) =>
  request(server.url, 'POST', `/api/runs/${runId}/tasks`, { body, ...(token ? { token } : {}) });
const patch = (runId: string, id: number, body: unknown, token: string | null = TOKEN) =>
  request(server.url, 'PATCH', `/api/runs/${runId}/tasks/${id}`, { body, ...(token ? { token } : {}) });
async function board(runId: string): Promise<BoardRow[]> {
  const r = await request(server.url, 'GET', `/api/runs/${runId}/tasks`);
  expect(r.status).toBe(200);
  return r.body.tasks as BoardRow[];
}

describe('the task board API', () => {
  it('needs the token to add or edit (401), reads without it', async () => {
    const runId = await newRun('tb-auth');
    expect(await board(runId)).toEqual([]);
    expect((await post(runId, { title: 'x' }, null)).status).toBe(401);
    expect((await post(runId, { title: 'x' }, 'wrong')).status).toBe(401);
    expect((await patch(runId, 1, { title: 'y' }, null)).status).toBe(401);
    expect(await board(runId)).toEqual([]);
    expect((await request(server.url, 'GET', '/api/runs/nope/tasks')).status).toBe(404);
  });

  it('refuses bad input with 400 and the reason (the rules of tasks_add)', async () => {
    const runId = await newRun('tb-bad');
    const cases: Array<[unknown, RegExp]> = [
      [{ title: '   ' }, /title is empty/],
      [{ title: 7 }, /title \(a string\) is required/],
      [{ title: 'x'.repeat(201) }, /limit is 200/],
      [{ title: 'a', scope: '../etc' }, /\.\./],
      [{ title: 'a', after: [99] }, /predecessor 99 is not a task of this run/],
      [{ title: 'a', after: 'x' }, /after must be a list/],
    ];
    for (const [body, error] of cases) {
      const r = await post(runId, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(String(r.body.error)).toMatch(error);
    }
    expect(await board(runId)).toEqual([]);
    await post(runId, { title: 'one' });
    for (const body of [
      {},
      { title: 3 },
      { before: 'x' },
      { before: 1, after: 1 },
      { title: 'x', scope: 5 },
    ]) {
      const r = await patch(runId, 1, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await patch(runId, 1, { before: 42 })).body.error).toMatch(/has no task 42/);
    expect((await patch(runId, 5, { title: 'y' })).status).toBe(404);
  });

  it('adds tasks as the person (logged without an agent), with predecessors and state', async () => {
    const runId = await newRun('tb-add');
    const a = await post(runId, { title: 'lexer', scope: 'src/lexer/', detail: 'tokens first' });
    expect(a.status).toBe(200);
    expect(a.body.tasks).toEqual([expect.objectContaining({ id: 1, existing: false })]);
    const b = await post(runId, { title: 'parser', scope: 'src/parser/', after: [1] });
    expect(b.status).toBe(200);
    const rows = await board(runId);
    expect(rows.map((t) => [t.id, t.title, t.scope, t.after, t.state, t.waitingFor])).toEqual([
      [1, 'lexer', 'src/lexer/', [], 'ready', []],
      [2, 'parser', 'src/parser/', [1], 'blocked', [1]],
    ]);
    const added = await store.log.read(runId, { kinds: ['task.added'] });
    expect(added.map((e) => [e.agent, e.data.by, e.data.title])).toEqual([
      [null, 'user', 'lexer'],
      [null, 'user', 'parser'],
    ]);
    // The person is not an agent of the run: the view has no agent for it.
    const view = await request(server.url, 'GET', `/api/runs/${runId}`);
    expect(view.body.agents).toEqual([]);
  });

  it('edits an open task; refuses to edit a held one (moving it is allowed) and a done one', async () => {
    const runId = await newRun('tb-edit');
    await post(runId, { tasks: [{ title: 'a' }, { title: 'b' }, { title: 'c' }] });
    const ok = await patch(runId, 1, { title: 'a, better', detail: 'how', scope: 'src/a/' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ outcome: 'ok' });
    const edited = await store.log.read(runId, { kinds: ['task.edited'] });
    expect(edited.map((e) => [e.agent, e.data])).toEqual([
      [
        null,
        {
          id: 1,
          by: 'user',
          changed: ['title', 'detail', 'scope'],
          title: 'a, better',
          scope: 'src/a/',
          hasDetail: true,
        },
      ],
    ]);
    expect((await patch(runId, 1, { title: 'a, better' })).body.outcome).toBe('unchanged');

    const granted = await coord.tasks.claimNext(runId, 'peer-1');
    expect(granted.ok && granted.value.status === 'granted' && granted.value.task.title).toBe('a, better');
    const held = await patch(runId, 1, { title: 'sneaky' });
    expect(held.status).toBe(409);
    expect(held.body.error).toMatch(/task 1 is held by peer-1 .*cannot change while it is worked on/);
    expect((await patch(runId, 1, { after: 3 })).status).toBe(200);
    expect((await board(runId)).find((t) => t.id === 1)).toMatchObject({ state: 'held', agent: 'peer-1' });

    await coord.claims.release({ runId, agent: 'peer-1', scope: 'src/a/', outcome: 'done: landed' });
    const done = await patch(runId, 1, { title: 'too late' });
    expect(done.status).toBe(409);
    expect(done.body.error).toMatch(/task 1 is done: it is never taken again/);
    expect((await board(runId)).at(-1)).toMatchObject({ id: 1, state: 'done', agent: 'peer-1' });
  });

  it('moves a task: agents take the first ready task in the person`s order', async () => {
    const runId = await newRun('tb-move');
    await post(runId, { tasks: [{ title: 'first' }, { title: 'second' }, { title: 'urgent' }] });
    const moved = await patch(runId, 3, { before: 1 });
    expect(moved.status).toBe(200);
    expect((await board(runId)).map((t) => t.id)).toEqual([3, 1, 2]);
    expect((await patch(runId, 2, { before: 1 })).status).toBe(200);
    expect((await board(runId)).map((t) => t.id)).toEqual([3, 2, 1]);
    const ready = await coord.tasks.ready(runId, 'peer-1');
    expect(ready.ok && ready.value.tasks.map((t) => t.id)).toEqual([3, 2, 1]);
    const next = await coord.tasks.claimNext(runId, 'peer-1');
    expect(next.ok && next.value.status === 'granted' && next.value.task.id).toBe(3);
    const moves = await store.log.read(runId, { kinds: ['task.edited'] });
    expect(moves.map((e) => [e.data.id, e.data.changed, e.data.before])).toEqual([
      [3, ['order'], 1],
      [2, ['order'], 1],
    ]);
  });

  it("wakes a waiting claim_next of another process's coordination at once", async () => {
    const runId = await newRun('tb-wake');
    const elsewhere = await createCoordination(store);
    try {
      // A re-check far beyond the test's patience: only the board signal can wake it in time.
      const tool = createClaimNextTool(elsewhere, runId, 'peer-7', { maxWaitMs: 8_000, recheckMs: 60_000 });
      const started = performance.now();
      const waiting = tool.run({ wait: true }, {});
      await new Promise((r) => setTimeout(r, 300));
      expect((await post(runId, { title: 'from the page' })).status).toBe(200);
      const result = await waiting;
      expect(JSON.stringify(result)).toContain('Task #1: from the page');
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await elsewhere.close();
    }
  });

  it('refuses to add to or edit the board of a finished run (409)', async () => {
    const runId = await newRun('tb-finished');
    await post(runId, { title: 'a' });
    await store.runs.setRunStatus(runId, 'succeeded');
    expect((await post(runId, { title: 'b' })).status).toBe(409);
    expect((await patch(runId, 1, { title: 'c' })).status).toBe(409);
  });
});
