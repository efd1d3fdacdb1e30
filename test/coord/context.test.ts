import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Coordination, createCoordination, createCoordinationTools } from '../../src/coord/index.js';
import type { StoredEvent } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, superuserClient, testRunId } from '../helpers/db.js';

let store: Store;
let coord: Coordination;

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
});
afterAll(async () => {
  await coord.close();
  await store.close();
});

async function post(
  runId: string,
  author: string,
  kind: 'OBSERVED' | 'FACT' | 'FAIL' | 'PATCH',
  summary: string,
  detail?: string,
) {
  const r = await coord.context.post({ runId, author, kind, summary, detail });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

async function read(
  runId: string,
  agent: string,
  options: Parameters<Coordination['context']['read']>[2] = {},
) {
  const r = await coord.context.read(runId, agent, options);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('shared context', () => {
  it('posts entries with per-run ids and logs context.posted for each', async () => {
    const runId = testRunId('ctx');
    const entries = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(runId, `a${i % 3}`, 'OBSERVED', `seen ${i}`)),
    );
    expect(entries.map((e) => e.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const events = (await store.log.read(runId)) as StoredEvent<'context.posted'>[];
    expect(events.map((e) => e.kind)).toEqual(Array(20).fill('context.posted'));
    // The log's order is the entries' id order.
    expect(events.map((e) => e.data.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(events[0]?.data).toMatchObject({
      kind: 'OBSERVED',
      summary: 'seen 0',
      scope: null,
      hasDetail: false,
    });
    expect((await store.log.verify(runId)).ok).toBe(true);
  });

  it('enforces the 200-character summary with a clear error', async () => {
    const runId = testRunId('ctx');
    const long = await coord.context.post({ runId, author: 'a', kind: 'FACT', summary: 'x'.repeat(201) });
    expect(long).toEqual({
      ok: false,
      error: 'summary is 201 characters; the limit is 200. Shorten it and put the rest in detail.',
    });
    // Characters, not UTF-16 units: 200 emoji are fine.
    const emoji = await coord.context.post({ runId, author: 'a', kind: 'FACT', summary: '😀'.repeat(200) });
    expect(emoji.ok).toBe(true);
    expect((await coord.context.post({ runId, author: 'a', kind: 'FACT', summary: '  ' })).ok).toBe(false);
    const tools = createCoordinationTools(coord, runId, 'a');
    const postTool = tools.find((t) => t.spec.name === 'context_post')!;
    const result = await postTool.run({ kind: 'FAIL', summary: 'y'.repeat(250) }, {});
    expect(result).toEqual({
      isError: true,
      content: 'summary is 250 characters; the limit is 200. Shorten it and put the rest in detail.',
    });
  });

  it('cursor: limit, remaining count, FAIL first, only returned entries marked read', async () => {
    const runId = testRunId('ctx');
    for (let i = 1; i <= 8; i++) await post(runId, 'w', i === 6 ? 'FAIL' : 'OBSERVED', `entry ${i}`);
    const first = await read(runId, 'r', { limit: 3 });
    expect(first.entries.map((e) => e.summary)).toEqual(['entry 6', 'entry 1', 'entry 2']);
    expect(first.entries[0]).toMatchObject({
      id: 6,
      kind: 'FAIL',
      author: 'w',
      scope: null,
      hasDetail: false,
    });
    expect(first.remaining).toBe(5);
    expect(first.unreadTotal).toBe(5);
    const second = await read(runId, 'r', { limit: 3 });
    expect(second.entries.map((e) => e.id)).toEqual([3, 4, 5]);
    expect(second.remaining).toBe(2);
    // Another agent has its own cursor from the beginning of the run.
    expect((await read(runId, 'other', { limit: 1 })).entries.map((e) => e.id)).toEqual([6]);
    await post(runId, 'w', 'FAIL', 'late failure');
    const third = await read(runId, 'r');
    expect(third.entries.map((e) => e.id)).toEqual([9, 7, 8]);
    expect(third.remaining).toBe(0);
    expect((await read(runId, 'r')).entries).toEqual([]);
    // The read state stays small: everything read is below the low-water mark.
    const su = await superuserClient(store);
    try {
      const cursor = await su.query(
        'SELECT low FROM colony.context_cursors WHERE run_id = $1 AND agent = $2',
        [runId, 'r'],
      );
      expect(Number(cursor.rows[0].low)).toBe(9);
      const marks = await su.query(
        'SELECT count(*)::int AS n FROM colony.context_reads WHERE run_id = $1 AND agent = $2',
        [runId, 'r'],
      );
      expect(marks.rows[0].n).toBe(0);
    } finally {
      await su.end();
    }
  });

  it('a FAIL posted by one agent is the first entry of another agent’s next context_read', async () => {
    const runId = testRunId('ctx');
    for (let i = 0; i < 5; i++) await post(runId, 'peer-1', 'OBSERVED', `note ${i}`);
    const peer1 = createCoordinationTools(coord, runId, 'peer-1');
    const peer2 = createCoordinationTools(coord, runId, 'peer-2');
    const run = (tools: typeof peer1, name: string, args: unknown) =>
      tools.find((t) => t.spec.name === name)!.run(args, {});
    const posted = await run(peer1, 'context_post', {
      kind: 'FAIL',
      summary: 'regex lexer cannot handle nested comments',
      detail: 'tried /\\/\\*.*?\\*\\//; fails on /* a /* b */ c */',
      scope: 'src/lexer.ts',
    });
    expect(posted).toEqual({ isError: false, content: 'Posted #6 (FAIL).' });
    const result = await run(peer2, 'context_read', { limit: 3 });
    expect(result.isError).toBe(false);
    const lines = result.content.split('\n');
    expect(lines[0]).toBe('3 new shared-context entries (FAIL first):');
    expect(lines[1]).toBe(
      '#6 FAIL peer-1 [src/lexer.ts]: regex lexer cannot handle nested comments (+detail)',
    );
    expect(lines[2]).toBe('#1 OBSERVED peer-1: note 0');
    expect(result.content).toContain('3 more unread: call context_read again.');
    const unfolded = await run(peer2, 'context_unfold', { id: 6 });
    expect(unfolded.content).toContain('detail:\ntried /\\/\\*.*?\\*\\//; fails on /* a /* b */ c */');
    expect((await run(peer2, 'context_unfold', { id: 99 })).isError).toBe(true);
  });

  it('grep: "," is or, "&" is and, over summary and detail, case-insensitive; non-matching stay unread', async () => {
    const runId = testRunId('ctx');
    await post(runId, 'a', 'OBSERVED', 'Lexer crashes on unicode'); // 1: lexer & crash
    await post(runId, 'a', 'OBSERVED', 'tokenizer is slow', 'profile shows a CRASH path'); // 2: tokenizer & crash (detail)
    await post(runId, 'a', 'OBSERVED', 'lexer handles tabs'); // 3: lexer only
    await post(runId, 'a', 'FACT', 'parser crash fixed'); // 4: crash only
    const hits = await read(runId, 'r', { grep: 'lexer,tokenizer&crash' });
    expect(hits.entries.map((e) => e.id)).toEqual([1, 2]);
    expect(hits.remaining).toBe(0);
    expect(hits.unreadTotal).toBe(2);
    const kinds = await read(runId, 'r', { kinds: ['FACT'] });
    expect(kinds.entries.map((e) => e.id)).toEqual([4]);
    expect((await read(runId, 'r')).entries.map((e) => e.id)).toEqual([3]);
    expect((await coord.context.read(runId, 'r', { grep: '&' })).ok).toBe(false);
  });

  it('entries can never be edited or deleted by the application role', async () => {
    const runId = testRunId('ctx');
    await post(runId, 'a', 'FACT', 'immutable');
    await expect(
      store.pool.query('UPDATE colony.context_entries SET summary = $1 WHERE run_id = $2', ['x', runId]),
    ).rejects.toThrow(/permission denied/);
    await expect(
      store.pool.query('DELETE FROM colony.context_entries WHERE run_id = $1', [runId]),
    ).rejects.toThrow(/permission denied/);
    const su = await superuserClient(store);
    try {
      await expect(
        su.query('UPDATE colony.context_entries SET summary = $1 WHERE run_id = $2', ['x', runId]),
      ).rejects.toThrow(/append-only/);
    } finally {
      await su.end();
    }
  });
});
