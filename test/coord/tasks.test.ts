import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Coordination,
  checkGrantHistory,
  createCoordination,
  createCoordinationTools,
  isDoneOutcome,
  type TaskInput,
} from '../../src/coord/index.js';
import { createClaimNextTool } from '../../src/coord/tools/claim-next.js';
import type { StoredEvent } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';

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

async function add(runId: string, tasks: TaskInput[], agent = 'planner') {
  const r = await coord.tasks.add(runId, agent, tasks);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

async function next(runId: string, agent: string) {
  const r = await coord.tasks.claimNext(runId, agent);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

async function release(runId: string, agent: string, scope: string, outcome: string) {
  const r = await coord.claims.release({ runId, agent, scope, outcome });
  if (!r.ok) throw new Error(r.error);
}

const taskId = (o: Awaited<ReturnType<typeof next>>) => (o.status === 'granted' ? o.task.id : null);

describe('task board', () => {
  it('a task is ready only when its predecessors are done; release done marks it done', async () => {
    const runId = testRunId('tasks');
    const added = await add(runId, [
      { title: 'lexer', scope: 'src/lexer/' },
      { title: 'parser', scope: 'src/parser/', after: ['src/lexer/'] },
      { title: 'docs', detail: 'write the README', after: [1, 2] },
    ]);
    expect(added.map((t) => [t.id, t.key, t.existing])).toEqual([
      [1, 'src/lexer/', false],
      [2, 'src/parser/', false],
      [3, 'docs', false],
    ]);
    const first = await next(runId, 'a');
    expect(first).toMatchObject({
      status: 'granted',
      task: { id: 1, title: 'lexer', scope: 'src/lexer/', detail: null },
      existing: false,
      entryId: 1,
    });
    // Nothing else is ready: 2 waits for 1, 3 for both.
    expect(await next(runId, 'b')).toEqual({
      status: 'none',
      counts: { total: 3, open: 3, ready: 0, blocked: 2, claimed: 1, failedByYou: 0, done: 0, dropped: 0 },
    });
    // Calling again while holding a task: nothing else is ready, so nothing (a peer takes the next
    // task while its merge request waits; the cap on held tasks is tested below).
    expect(await next(runId, 'a')).toMatchObject({ status: 'none', counts: { ready: 0, claimed: 1 } });

    await release(runId, 'a', 'src/lexer/', 'done: landed abc123');
    expect(taskId(await next(runId, 'b'))).toBe(2);
    expect(taskId(await next(runId, 'c'))).toBe(null);
    await release(runId, 'b', 'src/parser', 'Landed in merge 4');
    const docs = await next(runId, 'c');
    expect(docs).toMatchObject({
      status: 'granted',
      task: { id: 3, scope: 'task:3', detail: 'write the README' },
    });
    await release(runId, 'c', 'task:3', 'done');
    expect(await next(runId, 'c')).toMatchObject({ status: 'none', counts: { open: 0, done: 3 } });

    const events = await store.log.read(runId);
    expect(checkGrantHistory(events)).toMatchObject({ ok: true, grants: 3, releases: 3 });
    const kinds = events.map((e) => e.kind).filter((k) => k.startsWith('task.') || k.startsWith('claim.'));
    expect(kinds).toEqual([
      'task.added',
      'task.added',
      'task.added',
      'claim.granted',
      'task.claimed',
      'claim.released',
      'task.done',
      'claim.granted',
      'task.claimed',
      'claim.released',
      'task.done',
      'claim.granted',
      'task.claimed',
      'claim.released',
      'task.done',
    ]);
    const addedEvents = events.filter((e) => e.kind === 'task.added') as StoredEvent<'task.added'>[];
    expect(addedEvents.map((e) => e.data)).toEqual([
      { id: 1, key: 'src/lexer/', title: 'lexer', scope: 'src/lexer/', after: [], hasDetail: false },
      { id: 2, key: 'src/parser/', title: 'parser', scope: 'src/parser/', after: [1], hasDetail: false },
      { id: 3, key: 'docs', title: 'docs', scope: 'task:3', after: [1, 2], hasDetail: true },
    ]);
    const done = events.find((e) => e.kind === 'task.done') as StoredEvent<'task.done'>;
    expect(done.agent).toBe('a');
    expect(done.data).toEqual({
      id: 1,
      scope: 'src/lexer/',
      claimId: expect.any(Number),
      outcome: 'done: landed abc123',
    });
    // The CLAIM entry names the task.
    const ctx = await coord.context.read(runId, 'observer', { kinds: ['CLAIM'] });
    expect(ctx.ok && ctx.value.entries.map((e) => e.summary)).toEqual([
      'task 1: lexer',
      'task 2: parser',
      'task 3: docs',
    ]);
    expect((await store.log.verify(runId)).ok).toBe(true);
  });

  it('release with another outcome reopens the task for others, and skips it for the agent that gave up', async () => {
    const runId = testRunId('tasks');
    await add(runId, [
      { title: 'one', scope: 'a.ts' },
      { title: 'two', scope: 'b.ts' },
    ]);
    expect(taskId(await next(runId, 'a'))).toBe(1);
    await release(runId, 'a', 'a.ts', 'gave up: see FAIL #3');
    // a skips task 1 now; b gets it.
    expect(taskId(await next(runId, 'a'))).toBe(2);
    expect(taskId(await next(runId, 'b'))).toBe(1);
    await release(runId, 'a', 'b.ts', 'not done');
    expect(await next(runId, 'a')).toMatchObject({
      status: 'none',
      counts: { open: 2, ready: 0, claimed: 1, failedByYou: 1 },
    });
    // releaseAll (an agent finishing) leaves its task open too.
    expect(await coord.claims.releaseAll(runId, 'b')).toEqual({ ok: true, value: 1 });
    expect(taskId(await next(runId, 'c'))).toBe(1);
    const reopened = (await store.log.read(runId, {
      kinds: ['task.reopened'],
    })) as StoredEvent<'task.reopened'>[];
    expect(reopened.map((e) => [e.agent, e.data.id, e.data.reason, e.data.outcome])).toEqual([
      ['a', 1, 'released', 'gave up: see FAIL #3'],
      ['a', 2, 'released', 'not done'],
      ['b', 1, 'released', 'agent finished'],
    ]);
  });

  it('an expired lease puts the task back on the board (task.reopened, reason expired)', async () => {
    const runId = testRunId('tasks');
    const short = await createCoordination(store, { leaseMs: 150 });
    try {
      await add(runId, [{ title: 'one', scope: 'src/x/' }]);
      const r = await short.tasks.claimNext(runId, 'doomed');
      expect(r.ok && taskId(r.value)).toBe(1);
      expect(await next(runId, 'b')).toMatchObject({ status: 'none', counts: { claimed: 1 } });
      await new Promise((res) => setTimeout(res, 250));
      // The lapsed lease ends inside claim_next's own transaction; the task is free again.
      expect(taskId(await next(runId, 'b'))).toBe(1);
      // The agent whose lease lapsed is not barred from it (it may have been slow, not failing).
      const events = await store.log.read(runId);
      const reopened = events.filter((e) => e.kind === 'task.reopened') as StoredEvent<'task.reopened'>[];
      expect(reopened.map((e) => [e.agent, e.data.reason, e.data.outcome])).toEqual([
        ['doomed', 'expired', null],
      ]);
      expect(checkGrantHistory(events)).toMatchObject({ ok: true, grants: 2, expiries: 1 });
    } finally {
      await short.close();
    }
  });

  it('a manual claim on a task scope released done also finishes the task; claim_next skips scopes held by anyone', async () => {
    const runId = testRunId('tasks');
    await add(runId, [
      { title: 'parser', scope: 'src/parser/' },
      { title: 'lexer file', scope: 'src/parser/lexer.ts' },
      { title: 'other', scope: 'lib/' },
      { title: 'after parser', scope: 'docs/', after: ['src/parser/'] },
    ]);
    expect(
      await coord.claims.claim({ runId, agent: 'm', scope: 'src/parser/', summary: 'by hand' }),
    ).toMatchObject({
      ok: true,
      value: { status: 'granted' },
    });
    // 1 and 2 overlap m's claim: the next ready one is 3.
    expect(taskId(await next(runId, 'x'))).toBe(3);
    expect(await next(runId, 'y')).toMatchObject({ status: 'none', counts: { claimed: 3, blocked: 1 } });
    await release(runId, 'm', 'src/parser/', 'done');
    expect(taskId(await next(runId, 'y'))).toBe(2);
    expect(taskId(await next(runId, 'z'))).toBe(4);
  });

  it('two tasks on one scope (explicit keys): a done release finishes only the task it was granted for', async () => {
    const runId = testRunId('tasks');
    await add(runId, [
      { title: 'first pass', scope: 'x/', key: 'x1' },
      { title: 'second pass', scope: 'x/', key: 'x2' },
    ]);
    expect(taskId(await next(runId, 'a'))).toBe(1);
    expect(taskId(await next(runId, 'b'))).toBe(null);
    await release(runId, 'a', 'x/', 'done');
    expect(taskId(await next(runId, 'b'))).toBe(2);
    // A claim made by hand on a board scope finishes the lowest-id open task on exactly that scope.
    await add(runId, [
      { title: 'hand 1', scope: 'y/', key: 'y1' },
      { title: 'hand 2', scope: 'y/', key: 'y2' },
    ]);
    await coord.claims.claim({ runId, agent: 'm', scope: 'y/', summary: 'by hand' });
    await release(runId, 'm', 'y/', 'done');
    const done = (await store.log.read(runId, { kinds: ['task.done'] })) as StoredEvent<'task.done'>[];
    expect(done.map((e) => e.data.id)).toEqual([1, 3]);
  });

  it('claim on a conflict suggests free board tasks nearest to the scope', async () => {
    const runId = testRunId('tasks');
    await add(runId, [
      { title: 'far', scope: 'lib/z.ts' },
      { title: 'near', scope: 'src/parser/b.ts' },
      { title: 'sibling', scope: 'src/lexer.ts' },
      { title: 'blocked', scope: 'src/parser/c.ts', after: [1] },
    ]);
    await coord.claims.claim({ runId, agent: 'a', scope: 'src/parser/a.ts', summary: 'a' });
    const conflict = await coord.claims.claim({ runId, agent: 'b', scope: 'src/parser/a.ts', summary: 'b' });
    expect(
      conflict.ok && conflict.value.status === 'conflict' && conflict.value.nearby.map((t) => t.title),
    ).toEqual(['near', 'sibling', 'far']);
    const tools = createCoordinationTools(coord, runId, 'b');
    const claimTool = tools.find((t) => t.spec.name === 'claim')!;
    const text = (await claimTool.run({ scope: 'src/parser/a.ts', summary: 'b' }, {})).content;
    expect(text).toContain('Free tasks on the board');
    expect(text).toContain('#2 [src/parser/b.ts] near');
    // Without a board a conflict suggests nothing.
    const bare = testRunId('tasks');
    await coord.claims.claim({ runId: bare, agent: 'a', scope: 'x/', summary: 'a' });
    const plain = await coord.claims.claim({ runId: bare, agent: 'b', scope: 'x/', summary: 'b' });
    expect(plain.ok && plain.value.status === 'conflict' && plain.value.nearby).toEqual([]);
  });

  it('an agent holds at most 4 open board tasks: then claim_next gives back its oldest one', async () => {
    const runId = testRunId('tasks-cap');
    await add(
      runId,
      Array.from({ length: 6 }, (_, i) => ({ title: `t${i + 1}`, scope: `files/t${i + 1}.txt` })),
    );
    const ids: (number | null)[] = [];
    for (let i = 0; i < 4; i++) ids.push(taskId(await next(runId, 'a')));
    expect(ids).toEqual([1, 2, 3, 4]);
    expect(await next(runId, 'a')).toMatchObject({ status: 'granted', task: { id: 1 }, existing: true });
    // Another agent still gets the next free one; a done release makes room for a.
    expect(taskId(await next(runId, 'b'))).toBe(5);
    await release(runId, 'a', 'files/t1.txt', 'done: landed');
    expect(await next(runId, 'a')).toMatchObject({ status: 'granted', task: { id: 6 }, existing: false });
  });

  it('dedupe by key: existing tasks are reported, not added again', async () => {
    const runId = testRunId('tasks');
    await add(runId, [{ title: 'parser', scope: './src//parser/' }, { title: 'readme' }]);
    const again = await add(runId, [
      { title: 'parser again', scope: 'src/parser/' },
      { title: 'readme' },
      { title: 'explicit', scope: 'src/parser/', key: 'parser-tests' },
      { title: 'dup in call', key: 'k' },
      { title: 'dup in call 2', key: 'k' },
    ]);
    expect(again.map((t) => [t.id, t.existing])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [4, false],
      [4, true],
    ]);
  });

  it('bad input is refused with a reason, and nothing is added', async () => {
    const runId = testRunId('tasks');
    const refuse = async (tasks: TaskInput[]) => {
      const r = await coord.tasks.add(runId, 'p', tasks);
      expect(r.ok).toBe(false);
      return r.ok ? '' : r.error;
    };
    expect(await refuse([])).toMatch(/no tasks given/);
    expect(await refuse([{ title: '  ' }])).toBe('task 1: title is empty: say what the task is');
    expect(await refuse([{ title: 'x'.repeat(201) }])).toMatch(
      /^task 1: title is 201 characters; the limit is 200/,
    );
    expect(await refuse([{ title: 'ok', scope: '/abs' }])).toMatch(/absolute/);
    expect(await refuse(Array.from({ length: 1001 }, (_, i) => ({ title: `t${i}` })))).toMatch(
      /1001 tasks in one call; the limit is 1000/,
    );
    // Unknown predecessors, forward references and self references (the only ways to a cycle).
    expect(await refuse([{ title: 'a', after: [7] }])).toMatch(
      /task 1 \("a"\): predecessor 7 is not a task of this run/,
    );
    expect(
      await refuse([
        { title: 'a', key: 'a', after: ['b'] },
        { title: 'b', key: 'b' },
      ]),
    ).toMatch(/predecessor "b" is not a task/);
    expect(await refuse([{ title: 'self', key: 's', after: ['s'] }])).toMatch(/predecessor "s"/);
    expect(await refuse([{ title: 'ok' }, { title: 'bad', after: [0] }])).toMatch(/^task 2: predecessor 0/);
    // All or nothing: the good first task of a refused call was not added.
    expect(await coord.tasks.counts(runId, 'p')).toMatchObject({ ok: true, value: { total: 0 } });
    // Ids as strings and #ids are accepted.
    expect(
      (await add(runId, [{ title: 'a' }, { title: 'b', after: ['#1', '1', 1] }])).map((t) => t.id),
    ).toEqual([1, 2]);
    const ready = await coord.tasks.ready(runId, 'p');
    expect(ready.ok && ready.value.tasks.map((t) => [t.id, t.after])).toEqual([[1, []]]);
  });

  it('the rule for done', () => {
    for (const yes of [
      'done',
      'Done.',
      '  done: landed abc',
      'landed abc123',
      'LANDED',
      'done, see PATCH #4',
    ])
      expect(isDoneOutcome(yes), yes).toBe(true);
    for (const no of ['', 'not done', 'gave up', 'doneness', 'undone', 'peer finished', 'landing'])
      expect(isDoneOutcome(no), no).toBe(false);
  });

  it('200 concurrent claim_next on 100 tasks: every task granted exactly once', async () => {
    const runId = testRunId('tasks');
    await add(
      runId,
      Array.from({ length: 100 }, (_, i) => ({
        title: `task ${i}`,
        scope: `files/f${String(i).padStart(5, '0')}.txt`,
      })),
    );
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => next(runId, `agent${i}`)));
    const granted = outcomes.flatMap((o) => (o.status === 'granted' ? [o.task.id] : []));
    expect(granted.length).toBe(100);
    expect(new Set(granted).size).toBe(100);
    const none = outcomes.filter((o) => o.status === 'none');
    expect(none.length).toBe(100);
    expect(none[0]).toMatchObject({ counts: { open: 100, ready: 0, claimed: 100 } });
    const events = await store.log.read(runId);
    expect(checkGrantHistory(events)).toMatchObject({ ok: true, grants: 100, violations: [] });
  });

  it('tools: tasks_add, tasks_ready, claim_next, release', async () => {
    const runId = testRunId('tasks');
    const run = (agent: string, name: string, args: unknown) =>
      createCoordinationTools(coord, runId, agent)
        .find((t) => t.spec.name === name)!
        .run(args, {});
    expect((await run('a', 'tasks_ready', {})).content).toBe('The task board is empty.');
    expect((await run('a', 'claim_next', {})).content).toMatch(
      /^No task is ready for you\. .*The board is empty/,
    );
    const added = await run('a', 'tasks_add', {
      tasks: [
        { title: 'lexer', scope: 'src/lexer.ts', detail: 'tokens' },
        { title: 'parser', scope: 'src/parser.ts', after: ['src/lexer.ts'] },
      ],
    });
    expect(added).toEqual({ isError: false, content: 'Added 2 tasks.\n#1 lexer\n#2 parser' });
    expect(
      (await run('a', 'tasks_add', { tasks: [{ title: 'lexer', scope: 'src/lexer.ts' }] })).content,
    ).toBe('Added 0 tasks.\n1 already on the board (same key), not added again:\n#1 (key src/lexer.ts)');
    expect((await run('a', 'tasks_add', { tasks: [{ title: '' }] })).isError).toBe(true);
    expect((await run('b', 'tasks_ready', {})).content).toBe(
      'Board: 2 open (1 ready for you, 1 blocked by unfinished predecessors, 0 claimed by others), 0 done.\n' +
        '#1 [src/lexer.ts] lexer (+detail)',
    );
    const taken = (await run('b', 'claim_next', {})).content;
    expect(taken).toMatch(
      /^Task #1: lexer\nScope: src\/lexer\.ts\. You now hold src\/lexer\.ts \(claim \d+; posted as CLAIM #1\)\.\nDetail:\ntokens\n/,
    );
    expect((await run('c', 'claim_next', {})).content).toMatch(/Others are still working: wait/);
    expect((await run('b', 'release', { scope: 'src/lexer.ts', outcome: 'done' })).content).toBe(
      'Released src/lexer.ts.',
    );
    expect((await run('c', 'claim_next', {})).content).toMatch(/^Task #2: parser/);
    await run('c', 'release', { scope: 'src/parser.ts', outcome: 'landed' });
    expect((await run('c', 'claim_next', {})).content).toMatch(/Every task is done: stop taking tasks/);
  });

  describe('claim_next {wait}', () => {
    // No re-check and no time limit that a test could reach: only a change, a message or the end wakes it.
    const tool = (runId: string, agent: string, maxWaitMs = 600_000) =>
      createClaimNextTool(coord, runId, agent, { maxWaitMs, recheckMs: 600_000 });
    const tools = (runId: string, agent: string) => createCoordinationTools(coord, runId, agent);
    const run = (runId: string, agent: string, name: string, args: unknown) =>
      tools(runId, agent)
        .find((t) => t.spec.name === name)!
        .run(args, {});

    it('waits on an empty board until another agent adds tasks, then takes one', async () => {
      const runId = testRunId('tasks');
      const waiting = tool(runId, 'w').run({ wait: true }, {});
      await new Promise((resolve) => setTimeout(resolve, 300));
      await run(runId, 'planner', 'tasks_add', { tasks: [{ title: 'one', scope: 'src/one.ts' }] });
      const got = await waiting;
      expect(got.content).toMatch(/^Task #1: one\nScope: src\/one\.ts\. You now hold/);
    });

    it('waits for a blocked task until its predecessor is released done', async () => {
      const runId = testRunId('tasks');
      await add(runId, [
        { title: 'lexer', scope: 'src/lexer.ts' },
        { title: 'parser', scope: 'src/parser.ts', after: ['src/lexer.ts'] },
      ]);
      expect(taskId(await next(runId, 'a'))).toBe(1);
      const waiting = tool(runId, 'b').run({ wait: true }, {});
      await new Promise((resolve) => setTimeout(resolve, 300));
      await run(runId, 'a', 'release', { scope: 'src/lexer.ts', outcome: 'done' });
      expect((await waiting).content).toMatch(/^Task #2: parser/);
    });

    it('answers when a direct message comes, so the agent can read it', async () => {
      const runId = testRunId('tasks');
      await add(runId, [{ title: 'held', scope: 'src/held.ts' }]);
      expect(taskId(await next(runId, 'a'))).toBe(1);
      const waiting = tool(runId, 'b').run({ wait: true }, {});
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sent = await coord.messages.send({ runId, from: 'a', to: 'b', text: 'your request landed' });
      expect(sent.ok).toBe(true);
      expect((await waiting).content).toMatch(
        /^No task is ready for you \(waited \d+ s; a direct message came: read it\)/,
      );
    });

    it('answers at once when nothing more can come, and after its longest wait otherwise', async () => {
      const runId = testRunId('tasks');
      await add(runId, [{ title: 'only', scope: 'src/only.ts' }]);
      expect(taskId(await next(runId, 'a'))).toBe(1);
      await release(runId, 'a', 'src/only.ts', 'done');
      expect((await tool(runId, 'b').run({ wait: true }, {})).content).toMatch(/Every task is done/);
      const empty = testRunId('tasks');
      expect((await tool(empty, 'b', 600).run({ wait: true }, {})).content).toMatch(
        /^No task is ready for you \(waited \d+ s\)\. .*The board is empty/,
      );
    });
  });
});
