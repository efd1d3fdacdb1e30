import { describe, expect, it } from 'vitest';
import type { EventInput, StoredEvent } from '../../src/core/events.js';
import { createOccurrenceFinder } from '../../src/notify/occurrences.js';

let seq = 0;
function stored(event: Omit<EventInput, 'runId'>): StoredEvent {
  seq += 1;
  return {
    ...event,
    runId: 'r-1',
    seq,
    ts: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
    hash: '',
    prevHash: '',
  } as StoredEvent;
}
const response = (agent: string, input: number, costUsd: number | null = null) =>
  stored({
    agent,
    kind: 'model.response',
    data: {
      step: 1,
      turn: {
        text: '',
        toolCalls: [],
        stopReason: 'tool_use',
        usage: { input, output: 0 },
        costUsd,
        model: 'm',
      },
      latencyMs: 1,
      requestMessages: [],
    },
  } as unknown as Omit<EventInput, 'runId'>);

describe('the occurrences a run log holds', () => {
  it('warns once per budget when 80% of it is spent, counting every agent', () => {
    const finder = createOccurrenceFinder({ budgetTokens: 1000, budgetUsd: 1, approvals: false });
    expect(finder.apply(response('a', 400, 0.1))).toEqual([]);
    expect(finder.apply(response('b', 399, 0.1))).toEqual([]);
    const crossing = response('a', 1, 0.1);
    const warned = finder.apply(crossing);
    expect(warned).toEqual([
      {
        kind: 'budget_warning',
        key: 'budget:tokens',
        seq: crossing.seq,
        at: crossing.ts,
        agent: 'a',
        details: { budget: 'tokens', limit: 1000, used: 800, share: 0.8 },
      },
    ]);
    expect(finder.apply(response('a', 100, 0.6))).toMatchObject([
      { kind: 'budget_warning', key: 'budget:usd', details: { budget: 'usd', used: 0.9 } },
    ]);
    expect(finder.apply(response('a', 100, 0.1))).toEqual([]);
  });

  it('tells of a merge waiting for a person only when merges wait for one, once per request, with its note', () => {
    const requested = stored({
      agent: 'peer-1',
      kind: 'merge.requested',
      data: { mr: 3, branch: 'agent/peer-1', commit: 'c', note: 'x'.repeat(500) },
    });
    const parked = stored({ agent: 'peer-1', kind: 'merge.awaiting_approval', data: { mr: 3, commit: 'd' } });
    const withPerson = createOccurrenceFinder({ approvals: true });
    withPerson.apply(requested);
    const [found] = withPerson.apply(parked);
    expect(found).toMatchObject({ kind: 'approval_needed', key: 'approval:mr-3', agent: 'peer-1' });
    expect(found?.details).toMatchObject({ mr: 3, commit: 'd', approve: 'colony approve r-1 3' });
    expect(String(found?.details.note)).toHaveLength(200);
    // A resumed queue parks the same request again: the same occurrence.
    expect(
      withPerson.apply(
        stored({ agent: 'peer-1', kind: 'merge.awaiting_approval', data: { mr: 3, commit: 'd' } }),
      ),
    ).toEqual([]);
    // Integrators (agents) review: nobody is told.
    const integrators = createOccurrenceFinder({ approvals: false });
    integrators.apply(requested);
    expect(integrators.apply(parked)).toEqual([]);
  });

  it('tells of stalls, limits that stop something (a run budget once) and the run end', () => {
    const finder = createOccurrenceFinder({ approvals: false });
    const stall = stored({ agent: 'peer-2', kind: 'agent.stalled', data: { idleMs: 4000 } });
    expect(finder.apply(stall)).toMatchObject([
      { kind: 'agent_stalled', key: `stalled:peer-2:${stall.seq}` },
    ]);
    // The scheduler queueing and a 429 slow-down are not limits a person must act on.
    expect(
      finder.apply(
        stored({ agent: null, kind: 'limit.hit', data: { limit: 'concurrency', value: 4, used: 4 } }),
      ),
    ).toEqual([]);
    expect(
      finder.apply(
        stored({ agent: null, kind: 'limit.hit', data: { limit: 'model_concurrency', value: 2, used: 4 } }),
      ),
    ).toEqual([]);
    const budget = { limit: 'budget_tokens', value: 10, used: 11 };
    expect(finder.apply(stored({ agent: 'peer-1', kind: 'limit.hit', data: budget }))).toMatchObject([
      { kind: 'limit_hit', key: 'limit:budget_tokens', details: budget },
    ]);
    expect(finder.apply(stored({ agent: 'peer-2', kind: 'limit.hit', data: budget }))).toEqual([]);
    expect(
      finder.apply(
        stored({ agent: 'peer-1', kind: 'limit.hit', data: { limit: 'max_steps', value: 5, used: 5 } }),
      ),
    ).toHaveLength(1);
    const end = stored({
      agent: null,
      kind: 'run.finished',
      data: { status: 'failed', reason: 'r'.repeat(1000), resultBranch: null },
    });
    const [finished] = finder.apply(end);
    expect(finished).toMatchObject({
      kind: 'run_finished',
      key: 'run_finished',
      details: { status: 'failed' },
    });
    expect(String(finished?.details.reason)).toHaveLength(300);
  });

  it('reads what was notified, per target, from the log', () => {
    const finder = createOccurrenceFinder({ approvals: false });
    finder.apply(
      stored({
        agent: null,
        kind: 'notify.sent',
        data: { kind: 'run_finished', target: 'webhook:h:1', attempt: 1, occurrence: 'run_finished', seq: 9 },
      }),
    );
    expect(finder.done('webhook:h:1', 'run_finished')).toBe(true);
    expect(finder.done('desktop', 'run_finished')).toBe(false);
    finder.apply(
      stored({
        agent: null,
        kind: 'notify.failed',
        data: {
          kind: 'run_finished',
          target: 'desktop',
          error: 'e',
          attempts: 3,
          occurrence: 'run_finished',
          seq: 9,
        },
      }),
    );
    expect(finder.done('desktop', 'run_finished')).toBe(true);
  });
});
