/**
 * Claims across processes: a property-based test over random scope sets (seeded), with agents in
 * three child processes, checked against the grant history in the database; and lease expiry after
 * a holder's process is killed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Coordination,
  checkGrantHistory,
  createCoordination,
  parseScope,
  scopesOverlap,
} from '../../src/coord/index.js';
import type { StoredEvent } from '../../src/core/events.js';
import { seededRandom } from '../../src/core/random.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { type CoordChild, ensureBuilt, spawnCoordChild } from './child.js';

let store: Store;
let coord: Coordination;

beforeAll(async () => {
  ensureBuilt();
  store = await openTestStore();
  coord = await createCoordination(store);
});
afterAll(async () => {
  await coord.close();
  await store.close();
});

/** A random set of overlapping-prone scopes: folders, files (with look-alike names) and task ids. */
function randomScopes(random: () => number, n: number): string[] {
  const names = ['src', 'lib', 'parser', 'parser2', 'a', 'ab', 'b'];
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const scopes = new Set<string>();
  while (scopes.size < n) {
    const r = random();
    if (r < 0.15) scopes.add(`task:${1 + Math.floor(random() * 4)}`);
    else if (r < 0.17) scopes.add('.');
    else {
      const depth = 1 + Math.floor(random() * 3);
      const segments = Array.from({ length: depth }, () => pick(names));
      const path = segments.join('/');
      scopes.add(random() < 0.5 ? `${path}/` : `${path}.ts`);
    }
  }
  return [...scopes];
}

async function openChildren(
  n: number,
  options: { leaseMs: number; heartbeatMs: number },
): Promise<CoordChild[]> {
  const children = Array.from({ length: n }, () => spawnCoordChild());
  await Promise.all(children.map((c) => c.send({ cmd: 'open', ...options })));
  return children;
}

describe('claims across processes', () => {
  it('property: never two holders of overlapping scopes (3 processes, random scope sets, seeded)', async () => {
    const children = await openChildren(3, { leaseMs: 60_000, heartbeatMs: 10_000 });
    try {
      for (const seed of [11, 22, 33, 44]) {
        const random = seededRandom(seed);
        const runId = testRunId(`prop${seed}`);
        const scopes = randomScopes(random, 6 + Math.floor(random() * 10));
        const stats = await Promise.all(
          children.map((child, p) =>
            child.send({
              cmd: 'workload',
              runId,
              seed: seed * 10 + p,
              agents: Array.from({ length: 6 }, (_, i) => `p${p}-agent${i}`),
              ops: 30,
              scopes,
            }),
          ),
        );
        for (const s of stats) expect(s.errors).toEqual([]);
        const events = await store.log.read(runId);
        const history = checkGrantHistory(events);
        const context = `seed ${seed}, scopes ${JSON.stringify(scopes)}`;
        expect(history.violations, context).toEqual([]);
        expect(history.anomalies, context).toEqual([]);
        // The test only means something if the processes really competed.
        expect(history.grants, context).toBeGreaterThan(20);
        expect(history.conflicts, context).toBeGreaterThan(0);
        const newGrants = events.filter((e) => e.kind === 'claim.granted').length;
        const conflicts = stats.reduce((sum, s) => sum + (s.conflicts as number), 0);
        expect(history.conflicts).toBe(conflicts);
        // The table agrees with the log: one row per grant, and what is held now does not overlap.
        const rows = await store.pool.query<{
          id: string;
          agent: string;
          scope: string;
          ended_at: string | null;
        }>('SELECT id, agent, scope, ended_at FROM colony.claims WHERE run_id = $1', [runId]);
        expect(rows.rows.length).toBe(newGrants);
        const heldNow = rows.rows.filter((r) => r.ended_at === null);
        for (const x of heldNow) {
          for (const y of heldNow) {
            if (x.agent === y.agent) continue;
            const [sx, sy] = [parseScope(x.scope), parseScope(y.scope)];
            if (sx.ok && sy.ok)
              expect(scopesOverlap(sx.value, sy.value), `${x.scope} vs ${y.scope}`).toBe(false);
          }
        }
        expect((await store.log.verify(runId)).ok).toBe(true);
      }
    } finally {
      await Promise.all(children.map((c) => c.send({ cmd: 'close' }).catch(() => {})));
    }
  });

  it('a killed agent process: its claims expire (claim.expired, once) and others take the scope', async () => {
    const runId = testRunId('kill');
    const [holder, survivor] = await openChildren(2, { leaseMs: 800, heartbeatMs: 100 });
    try {
      const held = await holder!.send({ cmd: 'hold', runId, agent: 'doomed', scope: 'src/parser/' });
      expect(held.claim).toMatchObject({ status: 'granted' });
      await survivor!.send({ cmd: 'hold', runId, agent: 'living', scope: 'lib/' });
      // The heartbeat keeps both alive past the lease.
      await new Promise((r) => setTimeout(r, 1200));
      expect(
        await coord.claims.claim({ runId, agent: 'me', scope: 'src/parser/x.ts', summary: 'x' }),
      ).toMatchObject({
        ok: true,
        value: { status: 'conflict', holder: 'doomed' },
      });
      holder!.proc.kill('SIGKILL');
      await holder!.exited;
      const killedAt = performance.now();
      // Someone touches the run's claims: the lapsed lease ends, visibly, and the scope is free.
      let outcome = await coord.claims.claim({ runId, agent: 'me', scope: 'src/parser/x.ts', summary: 'x' });
      while (outcome.ok && outcome.value.status === 'conflict' && performance.now() - killedAt < 5000) {
        await new Promise((r) => setTimeout(r, 100));
        outcome = await coord.claims.claim({ runId, agent: 'me', scope: 'src/parser/x.ts', summary: 'x' });
      }
      expect(outcome).toMatchObject({ ok: true, value: { status: 'granted' } });
      expect(performance.now() - killedAt).toBeLessThan(2000);
      const events = await store.log.read(runId);
      const expired = events.filter((e) => e.kind === 'claim.expired') as StoredEvent<'claim.expired'>[];
      expect(expired.map((e) => e.data)).toEqual([
        { claimId: expect.any(Number), scope: 'src/parser/', holder: 'doomed', heldMs: expect.any(Number) },
      ]);
      // The survivor's heartbeat kept its claim.
      const stillHeld = await coord.claims.held(runId);
      expect(stillHeld.ok && stillHeld.value.map((c) => [c.agent, c.scope])).toEqual([
        ['living', 'lib/'],
        ['me', 'src/parser/x.ts'],
      ]);
      expect(checkGrantHistory(events)).toMatchObject({ ok: true, grants: 3, expiries: 1 });
    } finally {
      holder!.proc.kill('SIGKILL');
      await survivor!.send({ cmd: 'close' }).catch(() => {});
    }
  });
});
