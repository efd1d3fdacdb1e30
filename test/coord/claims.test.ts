import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Coordination,
  checkGrantHistory,
  createCoordination,
  createCoordinationTools,
} from '../../src/coord/index.js';
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

async function claim(runId: string, agent: string, scope: string, summary = `${agent} works on ${scope}`) {
  const r = await coord.claims.claim({ runId, agent, scope, summary });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('claims', () => {
  it('grants, reports conflicts with the holder, releases; each grant is a CLAIM entry', async () => {
    const runId = testRunId('claim');
    const granted = await claim(runId, 'a', 'src/parser/', 'rewrite the parser');
    expect(granted).toMatchObject({ status: 'granted', scope: 'src/parser/', existing: false, entryId: 1 });
    const conflict = await claim(runId, 'b', 'src/parser/lexer.ts');
    expect(conflict).toMatchObject({
      status: 'conflict',
      holder: 'a',
      holderScope: 'src/parser/',
      summary: 'rewrite the parser',
    });
    expect(conflict.status === 'conflict' && conflict.heldMs).toBeGreaterThanOrEqual(0);
    expect(await claim(runId, 'b', 'src/parser2/')).toMatchObject({ status: 'granted' });
    expect(await claim(runId, 'c', 'src/')).toMatchObject({ status: 'conflict', holder: 'a' });
    expect(await claim(runId, 'c', 'task:7')).toMatchObject({ status: 'granted' });
    expect(await claim(runId, 'b', 'task:7')).toMatchObject({ status: 'conflict', holder: 'c' });
    expect(await claim(runId, 'b', 'task:70')).toMatchObject({ status: 'granted' });

    const released = await coord.claims.release({ runId, agent: 'a', scope: 'src/parser', outcome: 'done' });
    expect(released).toEqual({ ok: true, value: { claimId: expect.any(Number), scope: 'src/parser/' } });
    expect(await claim(runId, 'b', 'src/parser/lexer.ts')).toMatchObject({ status: 'granted' });
    const notHeld = await coord.claims.release({ runId, agent: 'a', scope: 'src/parser/', outcome: 'again' });
    expect(notHeld).toEqual({
      ok: false,
      error: 'your claim on src/parser/ was already released; your claims: none',
    });

    const ctx = await coord.context.read(runId, 'observer', { kinds: ['CLAIM'] });
    expect(ctx.ok && ctx.value.entries.map((e) => [e.author, e.scope?.[0], e.summary])).toEqual([
      ['a', 'src/parser/', 'rewrite the parser'],
      ['b', 'src/parser2/', 'b works on src/parser2/'],
      ['c', 'task:7', 'c works on task:7'],
      ['b', 'task:70', 'b works on task:70'],
      ['b', 'src/parser/lexer.ts', 'b works on src/parser/lexer.ts'],
    ]);
    const events = await store.log.read(runId);
    const history = checkGrantHistory(events);
    expect(history).toMatchObject({ ok: true, grants: 5, releases: 1, conflicts: 3, violations: [] });
    expect(events.filter((e) => e.kind === 'claim.conflict')[0]?.data).toMatchObject({
      scope: 'src/parser/lexer.ts',
      holder: 'a',
      holderScope: 'src/parser/',
    });
  });

  it('own claims: a covered scope returns the held claim; a wider one is a new claim', async () => {
    const runId = testRunId('claim');
    const wide = await claim(runId, 'a', 'src/');
    const narrow = await claim(runId, 'a', 'src/x.ts');
    expect(narrow).toMatchObject({ status: 'granted', existing: true, scope: 'src/' });
    expect(wide.status === 'granted' && narrow.status === 'granted' && narrow.claimId === wide.claimId).toBe(
      true,
    );
    const file = await claim(runId, 'b', 'lib/y.ts');
    const dir = await claim(runId, 'b', 'lib/');
    expect(file.status === 'granted' && dir.status === 'granted' && dir.claimId !== file.claimId).toBe(true);
    expect(checkGrantHistory(await store.log.read(runId)).ok).toBe(true);
    expect(await coord.claims.releaseAll(runId, 'b')).toEqual({ ok: true, value: 2 });
    expect(await claim(runId, 'c', 'lib/')).toMatchObject({ status: 'granted' });
  });

  it('leases expire visibly once; the next claimant takes the scope', async () => {
    const runId = testRunId('claim');
    const short = await createCoordination(store, { leaseMs: 150 });
    try {
      expect((await short.claims.claim({ runId, agent: 'a', scope: 'src/', summary: 's' })).ok).toBe(true);
      await new Promise((r) => setTimeout(r, 250));
      const [first, second] = await Promise.all([
        claim(runId, 'b', 'src/a.ts'),
        claim(runId, 'c', 'src/b.ts'),
      ]);
      expect([first.status, second.status]).toEqual(['granted', 'granted']);
      const events = await store.log.read(runId);
      const expired = events.filter((e) => e.kind === 'claim.expired') as StoredEvent<'claim.expired'>[];
      expect(expired).toHaveLength(1);
      expect(expired[0]?.data).toMatchObject({ scope: 'src/', holder: 'a' });
      expect(expired[0]!.data.heldMs).toBeGreaterThanOrEqual(150);
      expect(checkGrantHistory(events)).toMatchObject({ ok: true, expiries: 1 });
      expect(await short.claims.release({ runId, agent: 'a', scope: 'src/', outcome: 'late' })).toEqual({
        ok: false,
        error: 'your claim on src/ expired (its lease lapsed); your claims: none',
      });
    } finally {
      await short.close();
    }
  });

  it('a heartbeat keeps leases alive; without it they lapse', async () => {
    const runId = testRunId('claim');
    // A lease of 1.5 s renewed every 100 ms: 'alive' lapses only if renewals stall for 1.5 s. (With
    // 200 ms and 50 ms it lapsed once on a machine loaded by a soak and a full suite at once.)
    const short = await createCoordination(store, { leaseMs: 1_500 });
    try {
      await short.claims.claim({ runId, agent: 'alive', scope: 'a/', summary: 's' });
      await short.claims.claim({ runId, agent: 'dead', scope: 'b/', summary: 's' });
      const heartbeat = short.claims.startHeartbeat(() => [{ runId, agent: 'alive' }], { intervalMs: 100 });
      await new Promise((r) => setTimeout(r, 2_500));
      heartbeat.stop();
      const held = await short.claims.held(runId);
      expect(held.ok && held.value.map((c) => c.agent)).toEqual(['alive']);
      const events = await store.log.read(runId, { kinds: ['claim.expired'] });
      expect(events.map((e) => (e.data as { holder: string }).holder)).toEqual(['dead']);
    } finally {
      await short.close();
    }
  });

  it('grants (with expiries and conflicts) and concurrent posts in one run never deadlock', async () => {
    const runId = testRunId('claim');
    const quick = await createCoordination(store, { leaseMs: 5 });
    try {
      const errors: string[] = [];
      let stop = false;
      const poster = (async () => {
        for (let i = 0; !stop; i++) {
          const posted = await Promise.all(
            Array.from({ length: 20 }, (_, j) =>
              quick.context.post({ runId, author: 'p', kind: 'FACT', summary: `x${i}.${j}` }),
            ),
          );
          for (const r of posted) if (!r.ok) errors.push(r.error);
        }
      })();
      await Promise.all(
        Array.from({ length: 30 }, async (_, a) => {
          for (let i = 0; i < 20; i++) {
            const r = await quick.claims.claim({
              runId,
              agent: `a${a}`,
              scope: `src/${i % 5}/`,
              summary: 's',
            });
            if (!r.ok) errors.push(r.error);
          }
        }),
      );
      stop = true;
      await poster;
      expect(errors).toEqual([]);
      const history = checkGrantHistory(await store.log.read(runId));
      expect(history).toMatchObject({ ok: true });
      expect(history.expiries).toBeGreaterThan(0);
    } finally {
      await quick.close();
    }
  });

  it('checkGrantHistory reports two holders of overlapping scopes', () => {
    const ev = (seq: number, agent: string, kind: string, data: Record<string, unknown>) =>
      ({ runId: 'r', seq, agent, kind, data, ts: '', hash: '', prevHash: '' }) as unknown as StoredEvent;
    const bad = checkGrantHistory([
      ev(1, 'a', 'claim.granted', { claimId: 1, scope: 'src/', summary: '', leaseMs: 1 }),
      ev(2, 'b', 'claim.granted', { claimId: 2, scope: 'src/x.ts', summary: '', leaseMs: 1 }),
      ev(3, 'a', 'claim.released', { claimId: 1, scope: 'src/', outcome: '' }),
      ev(4, 'c', 'claim.granted', { claimId: 3, scope: 'src/y.ts', summary: '', leaseMs: 1 }),
      ev(5, 'c', 'claim.released', { claimId: 9, scope: 'src/y.ts', outcome: '' }),
    ]);
    expect(bad.ok).toBe(false);
    expect(bad.violations).toEqual([
      {
        runId: 'r',
        seq: 2,
        claimId: 2,
        agent: 'b',
        scope: 'src/x.ts',
        otherClaimId: 1,
        otherAgent: 'a',
        otherScope: 'src/',
      },
    ]);
    expect(bad.anomalies).toEqual(['seq 5: claim.released of claim 9 that is not held']);
  });

  it('claim and release tools', async () => {
    const runId = testRunId('claim');
    const [a, b] = [createCoordinationTools(coord, runId, 'a'), createCoordinationTools(coord, runId, 'b')];
    const run = (tools: typeof a, name: string, args: unknown) =>
      tools.find((t) => t.spec.name === name)!.run(args, {});
    expect((await run(a, 'claim', { scope: 'src/parser/', summary: 'parser' })).content).toMatch(
      /^Granted: you hold src\/parser\/ \(claim \d+; posted as CLAIM #1\)/,
    );
    expect((await run(b, 'claim', { scope: 'src/parser/x.ts', summary: 'x' })).content).toMatch(
      /^Conflict: a holds src\/parser\/ \(for \d+s\): "parser"\. Choose other work/,
    );
    expect(await run(b, 'claim', { scope: '/abs', summary: 'x' })).toMatchObject({ isError: true });
    expect(await run(b, 'release', { scope: 'src/parser/', outcome: 'x' })).toEqual({
      isError: true,
      content: 'you hold no claim on src/parser/; your claims: none',
    });
    expect(await run(a, 'release', { scope: 'src/parser/', outcome: 'done' })).toEqual({
      isError: false,
      content: 'Released src/parser/.',
    });
  });
});

describe('free-form claim conflicts (issue 29)', () => {
  it('a conflict suggests base-tree paths nobody holds and no PATCH covers; context_read lists the open claims', async () => {
    const runId = testRunId('nearby');
    const paths = Array.from({ length: 20 }, (_, i) => `files/f${String(i).padStart(2, '0')}.txt`);
    coord.claims.providePaths(runId, async () => paths);
    const [a, b] = [createCoordinationTools(coord, runId, 'a'), createCoordinationTools(coord, runId, 'b')];
    const run = (tools: typeof a, name: string, args: unknown) =>
      tools.find((t) => t.spec.name === name)!.run(args, {});
    await claim(runId, 'a', 'files/f05.txt');
    await claim(runId, 'a', 'files/f06.txt');
    // f04's work landed (integration posts a PATCH with its files); f03 was released without landing.
    await claim(runId, 'c', 'files/f04.txt');
    const patched = await coord.context.post({
      runId,
      author: 'c',
      kind: 'PATCH',
      summary: 'MR 1 landed: f04',
      scope: ['files/f04.txt'],
    });
    expect(patched.ok).toBe(true);
    await coord.claims.release({ runId, agent: 'c', scope: 'files/f04.txt', outcome: 'landed' });
    await claim(runId, 'c', 'files/f03.txt');
    await coord.claims.release({ runId, agent: 'c', scope: 'files/f03.txt', outcome: 'gave up' });

    const conflict = await claim(runId, 'b', 'files/f05.txt');
    expect(conflict.status === 'conflict' && conflict.nearbyPaths).toEqual([
      'files/f03.txt',
      'files/f07.txt',
      'files/f02.txt',
      'files/f08.txt',
      'files/f01.txt',
    ]);
    const text = (await run(b, 'claim', { scope: 'files/f06.txt', summary: 'x' })).content;
    expect(text).toContain('Nearby paths nobody holds and no PATCH covers');
    expect(text).toContain('- files/f07.txt');
    expect(text).not.toContain('- files/f04.txt');
    expect(text).not.toContain('- files/f05.txt');

    const read = (await run(b, 'context_read', { kinds: ['CLAIM'], limit: 1 })).content;
    expect(read).toContain('Open claims now (2): a files/f05.txt · a files/f06.txt');
    const own = (await run(a, 'context_read', { kinds: ['FACT'] })).content;
    expect(own).not.toContain('Open claims now');
    const mine = (await run(a, 'context_read', {})).content;
    expect(mine).toContain('Open claims now (2): you files/f05.txt · you files/f06.txt');
  });

  it('a run without a path source, or a task scope, suggests nothing; a held folder covers its files', async () => {
    const runId = testRunId('nearby');
    await claim(runId, 'a', 'files/f01.txt');
    const conflict = await claim(runId, 'b', 'files/f01.txt');
    expect(conflict.status === 'conflict' && conflict.nearbyPaths).toEqual([]);
    coord.claims.providePaths(runId, async () => ['files/f01.txt', 'files/f02.txt', 'lib/x.ts', 'lib/y.ts']);
    await claim(runId, 'a', 'task:1');
    const onTask = await claim(runId, 'b', 'task:1');
    expect(onTask.status === 'conflict' && onTask.nearbyPaths).toEqual([]);
    await claim(runId, 'c', 'lib/');
    const onPath = await claim(runId, 'b', 'files/f01.txt');
    expect(onPath.status === 'conflict' && onPath.nearbyPaths).toEqual(['files/f02.txt']);
  });

  it('losers of claims made at the same moment are first shown different free paths', async () => {
    const runId = testRunId('nearby');
    const paths = Array.from({ length: 40 }, (_, i) => `files/f${String(i).padStart(2, '0')}.txt`);
    coord.claims.providePaths(runId, async () => paths);
    await claim(runId, 'holder', 'files/f10.txt');
    await claim(runId, 'holder', 'files/f11.txt');
    const [b, c] = await Promise.all([
      claim(runId, 'b', 'files/f10.txt'),
      claim(runId, 'c', 'files/f11.txt'),
    ]);
    const shown = [b, c].map((r) => (r.status === 'conflict' ? r.nearbyPaths : []));
    expect(shown.map((p) => p.length)).toEqual([5, 5]);
    expect(shown[0]?.filter((p) => shown[1]?.includes(p))).toEqual([]);
    // An agent's own earlier suggestions are not avoided for it.
    const again = await claim(runId, 'b', 'files/f10.txt');
    expect(again.status === 'conflict' && again.nearbyPaths).toEqual(shown[0]);
  });
});

describe("a run's own lease on a shared coordination (forRun, as a fleet worker uses it)", () => {
  it("claims and claim_next take the run's lease and heartbeat; the rest is shared and stays open", async () => {
    const run = coord.forRun(1000);
    expect([run.claims.leaseMs, run.claims.heartbeatMs]).toEqual([1000, 200]);
    expect([run.listener, run.messages, run.context, run.board]).toEqual([
      coord.listener,
      coord.messages,
      coord.context,
      coord.board,
    ]);
    // The same timing: the same services.
    expect(run.forRun(1000)).toBe(run);
    const runId = testRunId('for-run');
    const granted = await run.claims.claim({ runId, agent: 'a', scope: 'src/', summary: 'work' });
    expect(granted.ok && granted.value.status === 'granted' && granted.value.leaseMs).toBe(1000);
    const added = await run.tasks.add(runId, 'a', [{ key: 't', title: 'a task', scope: 'lib/' }]);
    expect(added.ok).toBe(true);
    const next = await run.tasks.claimNext(runId, 'a');
    expect(next.ok && next.value.status === 'granted' && next.value.leaseMs).toBe(1000);
    const held = await store.pool.query<{ lease_ms: number }>(
      'SELECT lease_ms FROM colony.claims WHERE run_id = $1 ORDER BY id',
      [runId],
    );
    expect(held.rows.map((r) => r.lease_ms)).toEqual([1000, 1000]);
    // Closing a run's view leaves the process's LISTEN connection and messages to their owner.
    await run.close();
    expect(coord.listener.isUp).toBe(true);
  });
});
