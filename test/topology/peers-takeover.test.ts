/**
 * Stalled peers and take-over, through executeRun with real Postgres, git and DBOS: peer-1 claims
 * src/alpha/ and then hangs inside a model call. The watchdog nudges it (a direct message), then
 * declares it stalled and stops renewing its claim; the lease lapses (claim.expired), peer-2 takes
 * alpha over, fixes and lands it, and the run ends as soon as verify passes on hub main with no
 * claim open — without waiting for peer-1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { call, callsSoFar, eventsOf, peersSpec, queuedMr, runScriptedPeers } from './peers-spec.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

function takeoverPolicy(): { policy: ScriptedPolicy; release: () => void } {
  let release = () => {};
  const hang = new Promise<void>((resolve) => {
    release = resolve;
    setTimeout(resolve, 30_000).unref();
  });
  const policy: ScriptedPolicy = async (request) => {
    const id = /Your peer ID is (peer-\d+)\.$/.exec(request.system)?.[1];
    const calls = callsSoFar(request);
    const lastResult = request.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
    const last = calls.at(-1);
    if (!last) return call('context_read');
    if (id === 'peer-1') {
      if (last.name === 'context_read') return call('claim', { scope: 'src/alpha/', summary: 'fix alpha' });
      // Claimed: now hang (a model call that does not come back) until peer-2 has landed alpha.
      await hang;
      return { text: 'peer-1: I was stuck' };
    }
    const alphaClaims = calls.filter((c) => c.name === 'claim' && c.arguments.includes('alpha')).length;
    const betaClaimed = calls.some((c) => c.name === 'claim' && c.arguments.includes('beta'));
    // First alpha (refused: peer-1 holds it), then beta, then alpha again until peer-1's lease lapses.
    // One tool call per turn, so results pair with calls by position; the area is the last granted claim.
    const results = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    const granted = calls.flatMap((c, i) =>
      c.name === 'claim' && !/held by|conflict/i.test(results[i] ?? '') ? [c.arguments] : [],
    );
    const area = granted.at(-1)?.includes('alpha') ? 'alpha' : 'beta';
    switch (last.name) {
      case 'context_read':
        // Wait until peer-1's claim is visible, so the first attempt on alpha really conflicts.
        if (alphaClaims === 0 && !/CLAIM[^\n]*alpha/.test(lastResult)) return call('context_read');
        if (alphaClaims === 0 || betaClaimed)
          return call('claim', { scope: 'src/alpha/', summary: 'fix alpha' });
        return call('claim', { scope: 'src/beta/', summary: 'fix beta' });
      case 'claim':
        if (/held by|conflict/i.test(lastResult)) {
          if (!betaClaimed) return call('claim', { scope: 'src/beta/', summary: 'fix beta' });
          return call('context_read');
        }
        return call('write', { path: `src/${area}/value.txt`, content: `fixed ${area}\n` });
      case 'write':
        return call('merge_request', { note: `fix ${area}` });
      case 'merge_request':
        // Nothing else to do: wait for the queue's answer, then release.
        return call('merge_status', { mr: queuedMr(lastResult), wait: true });
      case 'merge_status':
        return call('release', { scope: `src/${area}/`, outcome: 'landed' });
      case 'release':
        if (area === 'beta') return call('claim', { scope: 'src/alpha/', summary: 'take over alpha' });
        return { text: 'peer-2: fixed beta and took over alpha' };
      default:
        return { text: `peer-2: unexpected ${last.name}` };
    }
  };
  return { policy, release: () => release() };
}

describe('peers: stalled peer and take-over', () => {
  it('nudges a silent peer, lets its claim lapse, and another peer takes its scope over', async () => {
    const repo = createUserRepo(
      { 'src/alpha/value.txt': 'broken\n', 'src/beta/value.txt': 'broken\n' },
      'colony-takeover-',
    );
    const spec = peersSpec(repo, {
      runId: testRunId('takeover'),
      agents: 2,
      goal: 'Fix src/alpha and src/beta: each value.txt must read "fixed <module>".',
      verify: 'grep -q "fixed alpha" src/alpha/value.txt && grep -q "fixed beta" src/beta/value.txt',
      mergeVerify: 'true',
      idleMs: 400,
      claimLeaseMs: 1200,
      maxSteps: 400,
    });
    const { policy, release } = takeoverPolicy();
    try {
      const summary = await runScriptedPeers(store, spec, policy, 40);
      expect(summary.status).toBe('succeeded');
    } finally {
      release();
    }
    const events = await store.log.read(spec.runId);
    const of = eventsOf(events);

    // peer-1 was nudged by a direct message, then declared stalled.
    const nudged = of('agent.nudged');
    expect(nudged.map((e) => e.agent)).toContain('peer-1');
    const nudge = of('message.sent').find((e) => e.data.id === nudged[0]?.data.messageId);
    expect(nudge?.data).toMatchObject({ to: 'peer-1' });
    expect(nudge?.data.text).toMatch(/no progress/);
    expect(of('agent.stalled').map((e) => e.agent)).toEqual(['peer-1']);
    expect(of('agent.nudged').some((e) => e.agent === 'peer-2')).toBe(false);

    // Its alpha claim lapsed and peer-2 was granted alpha after that, then landed it.
    const expired = of('claim.expired').find((e) => e.data.scope.includes('alpha'));
    expect(expired?.data.holder).toBe('peer-1');
    const takeover = of('claim.granted').find((e) => e.agent === 'peer-2' && e.data.scope.includes('alpha'));
    expect(takeover).toBeDefined();
    expect((takeover as StoredEvent).seq).toBeGreaterThan((expired as StoredEvent).seq);
    expect(of('claim.conflict').some((e) => e.agent === 'peer-2')).toBe(true);
    expect(of('merge.landed').filter((e) => e.agent === 'peer-2')).toHaveLength(2);

    // The run ended on its goal (verify green on main, no open claim), not on peer-1's answer.
    const finished = of('run.finished')[0];
    expect(finished?.data.reason).toMatch(/verify passed on hub main .* no claim is open/);
    const peer1 = of('agent.finished').find((e) => e.agent === 'peer-1');
    expect(peer1?.data).toMatchObject({ status: 'done', stopReason: 'goal_met' });
  }, 120_000);
});
