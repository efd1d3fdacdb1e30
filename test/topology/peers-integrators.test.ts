/**
 * Peers with an integrator (`--integrators 1`), through executeRun on real Postgres, git and DBOS:
 * merge requests that pass the merge check wait for peer-1's review. peer-1 approves a good change
 * and rejects a bad one with a reason; its author is told why, fixes it and the fix is approved. Only
 * the integrator has the review tools, and every peer still gets the same prompt up to its ID.
 *
 * No order between the two authors is assumed: their merge requests may wait one at a time or
 * together, in either order, and peer-1 decides each one on its own diff. peer-1 does not poll: with
 * nothing to review it waits (NOTIFY, no timer) for the direct message the run sends it when a merge
 * request starts waiting for its review.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Coordination, createCoordination } from '../../src/coord/index.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { call, callsSoFar, eventsOf, peersSpec, queuedMr, runScriptedPeers } from './peers-spec.js';

let store: Store;
/** The test's own view of the run's messages (the run has its own Coordination; NOTIFY reaches both). */
let coord: Coordination;
beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
});
afterAll(async () => {
  await coord.close();
  await store.close();
});

/** The first merge request a review_queue answer lists: its id and its own section (header and diff). */
function firstListed(listing: string): { mr: number; section: string } | null {
  const found = /## MR (\d+) by peer-\d+[\s\S]*?(?=\n## MR \d|$)/.exec(listing);
  return found ? { mr: Number(found[1]), section: found[0] } : null;
}

function integratorsPolicy(runId: string, signal: AbortSignal): ScriptedPolicy {
  return async (request) => {
    const id = /Your peer ID is (peer-\d+)\.$/.exec(request.system)?.[1];
    const calls = callsSoFar(request);
    const lastResult = request.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
    const last = calls.at(-1);
    if (id === 'peer-1') {
      // The integrator: review whatever waits, one merge request at a time, until the run ends.
      if (last?.name === 'review_queue') {
        const listed = firstListed(lastResult);
        if (listed) {
          // Judged on its own diff only: the listing may hold the other author's request too.
          const bad = /^\+fixd/m.test(listed.section);
          return call('review_merge', {
            mr: listed.mr,
            decision: bad ? 'reject' : 'approve',
            reason: bad ? 'typo: the file must say "fixed", not "fixd"' : 'matches the goal',
          });
        }
        // Nothing waits. Unless a notice came with this request (injected after the empty listing),
        // wait for the next one: a request is in the review queue before its notice is sent.
        if (request.messages.at(-1)?.role !== 'user')
          await coord.messages.waitForMessage(runId, 'peer-1', { signal });
      }
      return call('review_queue');
    }
    const area = id === 'peer-2' ? 'alpha' : 'beta';
    if (!last) return call('context_read');
    switch (last.name) {
      case 'context_read':
        return call('claim', { scope: `src/${area}/`, summary: `fix ${area}` });
      case 'claim':
        // peer-3 first writes a typo, which the reviewer rejects.
        return call('write', {
          path: `src/${area}/value.txt`,
          content: `${area === 'beta' ? 'fixd' : 'fixed'} ${area}\n`,
        });
      case 'write':
        return call('merge_request', { note: `fix ${area}` });
      case 'merge_request':
        // Submit and move on; with nothing else to do, wait for the review's outcome.
        return call('merge_status', { mr: queuedMr(lastResult), wait: true });
      case 'merge_status':
        if (/rejected/i.test(lastResult))
          return call('edit', { path: `src/${area}/value.txt`, old: 'fixd', new: 'fixed' });
        return call('release', { scope: `src/${area}/`, outcome: 'landed' });
      case 'edit':
        return call('merge_request', { note: `fix ${area} (typo fixed)` });
      default:
        return { text: `${id}: fixed ${area}` };
    }
  };
}

describe('peers with integrators', () => {
  it('lands merges only after an integrator review; a rejected change comes back with the reason', async () => {
    const repo = createUserRepo(
      { 'src/alpha/value.txt': 'broken\n', 'src/beta/value.txt': 'broken\n' },
      'colony-integrators-',
    );
    const spec = peersSpec(repo, {
      runId: testRunId('integrators'),
      agents: 3,
      integrators: 1,
      goal: 'Fix src/alpha and src/beta: each value.txt must read "fixed <module>".',
      verify: 'grep -qx "fixed alpha" src/alpha/value.txt && grep -qx "fixed beta" src/beta/value.txt',
      mergeVerify: 'true',
    });
    // Ends peer-1's wait for a notice if the run ends while it waits.
    const done = new AbortController();
    const summary = await runScriptedPeers(
      store,
      spec,
      integratorsPolicy(spec.runId, done.signal),
      30,
    ).finally(() => done.abort());
    expect(summary.status).toBe('succeeded');
    const events = await store.log.read(spec.runId);
    const of = eventsOf(events);

    // Only the integrator has the review tools; the prompt is the same up to the ID.
    const starts = of('agent.started');
    for (const start of starts)
      expect(start.data.tools.includes('review_merge'), start.agent ?? '').toBe(start.agent === 'peer-1');
    expect(new Set(starts.map((e) => e.data.system.replace(/peer-\d+\.$/, ''))).size).toBe(1);
    expect(starts[0]?.data.system).toMatch(/# Integrators\npeer-1\. A merge request/);

    // Every landed change waited for a review by peer-1; the typo was rejected with the reason.
    const landed = of('merge.landed');
    expect(landed.map((e) => e.agent).sort()).toEqual(['peer-2', 'peer-3']);
    const approvedBy = new Map(of('merge.approved').map((e) => [e.data.mr, e.data.by]));
    for (const e of landed) expect(approvedBy.get(e.data.mr)).toBe('peer-1');
    const awaiting = new Set(of('merge.awaiting_approval').map((e) => e.data.mr));
    for (const e of landed) expect(awaiting.has(e.data.mr)).toBe(true);
    const rejected = of('merge.rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ agent: 'peer-3', data: { reason: 'review_rejected' } });
    expect(rejected[0]?.data.output).toMatch(/rejected by peer-1 in review: typo/);
    const told = of('message.sent').find((e) => e.data.to === 'peer-3' && /review/.test(e.data.text));
    expect(told?.data.text).toMatch(/typo/);
  }, 180_000);
});
