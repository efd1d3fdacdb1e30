import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonForPostgres } from '../../src/store/event-log.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, superuserClient, testRunId } from '../helpers/db.js';
import { spawnStoreChild } from './child-process.js';

let stores: Store[] = [];

beforeAll(async () => {
  stores = await Promise.all([openTestStore(), openTestStore(), openTestStore()]);
});

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

const warning = (runId: string, agent: string | null, message: string) =>
  ({ runId, agent, kind: 'warning', data: { message } }) as const;

async function seqs(store: Store, runId: string): Promise<number[]> {
  const res = await store.pool.query<{ seq: string }>(
    'SELECT seq FROM colony.events WHERE run_id = $1 ORDER BY seq',
    [runId],
  );
  return res.rows.map((r) => Number(r.seq));
}

describe('event log', () => {
  it('assigns gap-free seq 1..N across concurrent stores and a separate process', async () => {
    const runId = testRunId('concurrent');
    const child = spawnStoreChild({});
    await child.send('open');
    const childAppend = child.send(`append ${runId} 300 child`);
    const local = stores.map((s, k) =>
      Promise.all(Array.from({ length: 200 }, (_, i) => s.log.append(warning(runId, `s${k}`, `${i}`)))),
    );
    const [fromChild, ...fromStores] = await Promise.all([childAppend, ...local]);
    await child.send('close');
    const all = [...(fromChild.appended as number[]), ...fromStores.flat().map((e) => e.seq)];
    expect(all).toHaveLength(900);
    expect(new Set(all).size).toBe(900);
    expect(await seqs(stores[0]!, runId)).toEqual(Array.from({ length: 900 }, (_, i) => i + 1));
    expect(await stores[1]!.log.verify(runId)).toEqual({ runId, events: 900, ok: true, firstBreak: null });
  });

  it('keeps each caller in order and links every row to the previous hash', async () => {
    const runId = testRunId('order');
    const store = stores[0]!;
    const events = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.log.append(warning(runId, i % 2 ? 'odd' : 'even', String(i))),
      ),
    );
    for (const agent of ['odd', 'even']) {
      const mine = events.filter((e) => e.agent === agent).map((e) => e.seq);
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
    }
    const read = await store.log.read(runId);
    expect(read.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(read[0]!.prevHash).toBe('0'.repeat(64));
    for (let i = 1; i < read.length; i++) expect(read[i]!.prevHash).toBe(read[i - 1]!.hash);
    expect(read[3]!.data).toEqual({ message: '3' });
    expect(read[3]!.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('filters reads by seq, agent, kind and limit', async () => {
    const runId = testRunId('read');
    const log = stores[0]!.log;
    await log.appendMany([
      warning(runId, 'a', '1'),
      warning(runId, 'b', '2'),
      { runId, agent: 'a', kind: 'limit.hit', data: { limit: 'steps', value: 3, used: 3 } },
      warning(runId, null, '4'),
    ]);
    expect((await log.read(runId, { agent: 'a' })).map((e) => e.seq)).toEqual([1, 3]);
    expect((await log.read(runId, { kinds: ['limit.hit'] })).map((e) => e.seq)).toEqual([3]);
    expect((await log.read(runId, { afterSeq: 1, limit: 2 })).map((e) => e.seq)).toEqual([2, 3]);
    expect((await log.read(runId, { afterSeq: 3 }))[0]!.agent).toBeNull();
  });

  it('a slim read leaves out tool output and prompts, keeps everything else, and keeps the hashes', async () => {
    const runId = testRunId('slim');
    const log = stores[0]!.log;
    const tool = {
      step: 1,
      callId: 'c1',
      name: 'bash',
      isError: false,
      content: 'x'.repeat(10_000),
      summary: 'ok',
      durationMs: 5,
    };
    await log.appendMany([
      { runId, agent: 'a', kind: 'tool.finished', data: tool },
      {
        runId,
        agent: 'a',
        kind: 'agent.started',
        data: {
          profile: 'coder',
          model: 'm',
          system: 'long prompt',
          task: 'the task',
          tools: ['bash'],
          maxSteps: 9,
        },
      },
      warning(runId, 'a', 'kept'),
    ]);
    const full = await log.read(runId);
    const slim = await log.read(runId, { slim: true });
    expect(full[0]!.data).toEqual(tool);
    const { content: _content, ...withoutContent } = tool;
    expect(slim[0]!.data).toEqual(withoutContent);
    expect(slim[1]!.data).toEqual({ profile: 'coder', model: 'm', tools: ['bash'], maxSteps: 9 });
    expect(slim[2]!.data).toEqual(full[2]!.data);
    expect(slim.map((e) => e.hash)).toEqual(full.map((e) => e.hash));
  });

  it('groups concurrent appends into few INSERT statements', async () => {
    const runId = testRunId('group');
    const log = stores[2]!.log;
    const before = log.stats.flushes;
    await Promise.all(
      Array.from({ length: 500 }, (_, i) => log.append(warning(runId, `g${i % 20}`, String(i)))),
    );
    const flushes = log.stats.flushes - before;
    expect(flushes).toBeGreaterThanOrEqual(1);
    expect(flushes).toBeLessThanOrEqual(5);
    expect(await seqs(stores[2]!, runId)).toHaveLength(500);
  });

  it('flush() waits for everything queued', async () => {
    const runId = testRunId('flush');
    const log = stores[1]!.log;
    for (let i = 0; i < 30; i++) void log.append(warning(runId, 'f', String(i)));
    await log.flush();
    expect(await seqs(stores[1]!, runId)).toHaveLength(30);
  });

  it('stores text Postgres jsonb would refuse (NUL, lone surrogates) instead of failing the batch', async () => {
    const runId = testRunId('odd-text');
    const log = stores[0]!.log;
    const odd = ['nul \u0000 byte', 'lone \ud800 surrogate', 'escaped \\u0000 literal', 'pair 😀'];
    await Promise.all(odd.map((m) => log.append(warning(runId, 'x', m))));
    const read = await log.read(runId);
    expect(read.map((e) => (e.data as { message: string }).message)).toEqual([
      'nul \ufffd byte',
      'lone \ufffd surrogate',
      'escaped \\u0000 literal',
      'pair 😀',
    ]);
    expect(JSON.parse(jsonForPostgres(JSON.stringify('a\\\u0000')))).toBe('a\\\ufffd');
  });

  it('continues the chain across statements, savepoint rollbacks and interleaved runs in one transaction', async () => {
    const store = stores[0]!;
    const [x, y] = [testRunId('tx-x'), testRunId('tx-y')];
    const client = await store.pool.connect();
    const insert = (runId: string, n: number) =>
      client.query(
        `INSERT INTO colony.events (run_id, agent, kind, data)
         SELECT $1, 'a', 'warning', jsonb_build_object('message', g::text) FROM generate_series(1, $2) g`,
        [runId, n],
      );
    try {
      await client.query('BEGIN');
      await insert(x, 3);
      await client.query('SAVEPOINT s');
      await insert(x, 2); // cached head now says seq 5 …
      await client.query('ROLLBACK TO SAVEPOINT s'); // … and must revert to 3 with the rows
      await insert(x, 1);
      await insert(y, 1);
      await client.query('COMMIT');
      await client.query('BEGIN');
      await insert(x, 2);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await store.log.append(warning(x, 'a', 'after'));
    expect(await seqs(store, x)).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs(store, y)).toEqual([1]);
    expect((await store.log.verify(x)).ok).toBe(true);
    expect((await store.log.verify(y)).ok).toBe(true);
    const head = await store.pool.query<{ last_seq: string; last_hash: string }>(
      'SELECT last_seq, last_hash FROM colony.run_heads WHERE run_id = $1',
      [x],
    );
    const last = (await store.log.read(x, { afterSeq: 4 }))[0]!;
    expect(head.rows[0]).toEqual({ last_seq: '5', last_hash: last.hash });
  });

  it('interleaved runs in one batch each get their own gap-free sequence', async () => {
    const runs = [testRunId('mix-a'), testRunId('mix-b'), testRunId('mix-c')];
    const log = stores[1]!.log;
    const events = await log.appendMany(
      Array.from({ length: 90 }, (_, i) => warning(runs[i % 3]!, 'm', String(i))),
    );
    for (const [k, runId] of runs.entries()) {
      const mine = events.filter((e) => e.runId === runId);
      expect(mine.map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(mine.map((e) => (e.data as { message: string }).message)).toEqual(
        Array.from({ length: 30 }, (_, i) => String(i * 3 + k)),
      );
      expect((await log.verify(runId)).ok).toBe(true);
    }
  });

  it('verify names exactly the row a superuser altered', async () => {
    const runId = testRunId('tamper');
    const store = stores[0]!;
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.log.append(warning(runId, 'a', String(i)))));
    expect((await store.log.verify(runId)).ok).toBe(true);
    const su = await superuserClient(store);
    try {
      await su.query('SET session_replication_role = replica');
      await su.query(`UPDATE colony.events SET data = '{"message":"forged"}' WHERE run_id = $1 AND seq = 7`, [
        runId,
      ]);
    } finally {
      await su.end();
    }
    expect(await store.log.verify(runId)).toEqual({
      runId,
      events: 10,
      ok: false,
      firstBreak: { seq: 7, reason: 'hash_mismatch' },
    });
  });

  it('verify reports a forged hash as a broken link, and deleted rows as gaps', async () => {
    const store = stores[0]!;
    const su = await superuserClient(store);
    try {
      await su.query('SET session_replication_role = replica');
      const relinked = testRunId('relink');
      await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.log.append(warning(relinked, 'a', String(i)))),
      );
      await su.query(
        `UPDATE colony.events SET data = '{"message":"x"}',
           hash = colony.event_hash(prev_hash, run_id, seq, agent, kind, ts, '{"message":"x"}')
         WHERE run_id = $1 AND seq = 3`,
        [relinked],
      );
      expect((await store.log.verify(relinked)).firstBreak).toEqual({ seq: 4, reason: 'prev_hash_mismatch' });

      const holed = testRunId('hole');
      await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.log.append(warning(holed, 'a', String(i)))),
      );
      await su.query('DELETE FROM colony.events WHERE run_id = $1 AND seq = 2', [holed]);
      expect((await store.log.verify(holed)).firstBreak).toEqual({ seq: 3, reason: 'sequence_gap' });

      const cut = testRunId('cut');
      await Promise.all(Array.from({ length: 6 }, (_, i) => store.log.append(warning(cut, 'a', String(i)))));
      await su.query('DELETE FROM colony.events WHERE run_id = $1 AND seq > 4', [cut]);
      expect(await store.log.verify(cut)).toEqual({
        runId: cut,
        events: 4,
        ok: false,
        firstBreak: { seq: 5, reason: 'sequence_gap' },
      });
    } finally {
      await su.end();
    }
  });

  it('the application role cannot UPDATE, DELETE or TRUNCATE events; the guard stops even the superuser', async () => {
    const runId = testRunId('immutable');
    const store = stores[0]!;
    await store.log.append(warning(runId, 'a', 'keep'));
    const who = await store.pool.query<{ u: string }>('SELECT current_user AS u');
    expect(who.rows[0]!.u).toBe('colony_app');
    await expect(
      store.pool.query('UPDATE colony.events SET kind = $2 WHERE run_id = $1', [runId, 'x']),
    ).rejects.toThrow(/permission denied/);
    await expect(store.pool.query('DELETE FROM colony.events WHERE run_id = $1', [runId])).rejects.toThrow(
      /permission denied/,
    );
    await expect(store.pool.query('TRUNCATE colony.events')).rejects.toThrow(/permission denied/);
    await expect(store.pool.query('UPDATE colony.run_heads SET last_seq = 0')).rejects.toThrow(
      /permission denied/,
    );
    const su = await superuserClient(store);
    try {
      await expect(su.query('DELETE FROM colony.events WHERE run_id = $1', [runId])).rejects.toThrow(
        /append-only/,
      );
      await expect(
        su.query('UPDATE colony.events SET kind = kind WHERE run_id = $1', [runId]),
      ).rejects.toThrow(/append-only/);
    } finally {
      await su.end();
    }
    expect(await store.log.read(runId)).toHaveLength(1);
  });

  it('rejects waiting appends with a clear error when the insert fails', async () => {
    const store = await openTestStore();
    await store.pool.end();
    await expect(store.log.append(warning(testRunId('fail'), 'a', 'x'))).rejects.toThrow(
      /event log: committing 1 event\(s\) failed/,
    );
  });
});
