/**
 * The lines `colony run` and `colony logs` print: a provider's 429 reads as what happened (not as a
 * configured limit), team and fleet events are words (never a raw kind like `task.assigned`), and a
 * step line shows Anthropic's cache writes.
 */
import { describe, expect, it } from 'vitest';
import { formatEvent } from '../../src/cli/event-line.js';
import type { EventInput, StoredEvent } from '../../src/core/events.js';

function stored(input: EventInput, seq = 1): StoredEvent {
  return { ...input, seq, ts: '2026-12-03T10:00:00.000Z', hash: 'h', prevHash: 'p' } as StoredEvent;
}

describe('formatEvent', () => {
  it('says a 429 slowed the run down, with the lowered number of requests', () => {
    const line = formatEvent(
      stored({
        runId: 'r',
        agent: null,
        kind: 'limit.hit',
        data: { limit: 'model_concurrency', value: 1, used: 1 },
      }),
    );
    expect(line).toMatch(/provider asked to slow down \(429/);
    expect(line).toMatch(/lowered to 1/);
    expect(line).not.toMatch(/limit hit: model_concurrency/);
  });

  it('prints cache writes in a step line when the provider reports them', () => {
    const line = formatEvent(
      stored({
        runId: 'r',
        agent: 'solo',
        kind: 'model.response',
        data: {
          step: 1,
          turn: {
            text: 'done',
            toolCalls: [],
            stopReason: 'end',
            usage: { input: 12, cachedInput: 3000, cacheWrite: 1500, output: 40, reasoning: undefined },
            costUsd: null,
            model: 'claude',
          },
          latencyMs: 900,
          requestMessages: 2,
        },
      }),
    );
    expect(line).toContain('12+3000 cached + 1500 cache writes in, 40 out');
  });

  it('says which agent CLI did what, never a bare "agent cli"', () => {
    const cli = (data: EventInput<'agent.cli'>['data']) =>
      formatEvent(stored({ runId: 'r', agent: 'peer-2', kind: 'agent.cli', data })) ?? '';
    expect(cli({ cli: 'claude-code', event: 'started', pid: 4242 })).toMatch(
      /\[peer-2\] agent CLI claude-code started \(pid 4242\)$/,
    );
    expect(cli({ cli: 'codex', event: 'session', sessionId: 'sess-9' })).toMatch(
      /agent CLI codex session sess-9$/,
    );
    expect(cli({ cli: 'cmd', event: 'exited', exitCode: 3 })).toMatch(/agent CLI cmd exited with code 3$/);
    expect(cli({ cli: 'claude-code', event: 'exited', exitCode: null, detail: 'SIGKILL' })).toMatch(
      /agent CLI claude-code exited: SIGKILL$/,
    );
    expect(
      cli({
        cli: 'codex',
        event: 'restarted',
        restart: 1,
        detail: 'exited 137 before its result; resuming session s1',
      }),
    ).toMatch(/agent CLI codex restarted \(restart 1\): exited 137 before its result; resuming session s1$/);
    for (const event of ['started', 'session', 'exited', 'restarted'] as const)
      expect(cli({ cli: 'codex', event })).not.toMatch(/agent cli\b/);
  });

  it('says where a fleet run places an agent, a takeover and a lost worker', () => {
    const placed = (epoch: number, takeover: boolean) =>
      formatEvent(
        stored({
          runId: 'r',
          agent: 'peer-1',
          kind: 'agent.placed',
          data: { worker: 'w2', host: 'box-b', epoch, session: 'r/peer-1', takeover },
        }),
      );
    expect(placed(1, false)).toBe('10:00:00 [peer-1] placed on worker w2 (host box-b)');
    expect(placed(2, true)).toBe('10:00:00 [peer-1] taken over by worker w2 (host box-b, epoch 2)');
    // A subagent's next task is a new session of the same agent: a higher epoch, not a takeover.
    expect(placed(3, false)).toBe('10:00:00 [peer-1] placed on worker w2 (host box-b)');
    const lost = formatEvent(
      stored({
        runId: 'r',
        agent: null,
        kind: 'worker.lost',
        data: { worker: 'w1', silentMs: 15000, reenqueued: 3, by: 'w2' },
      }),
    );
    expect(lost).toBe('10:00:00 worker w1 lost (silent 15000 ms): 3 session(s) re-enqueued by w2');
  });

  it('names orchestration, integration and claim events in words', () => {
    const events: EventInput[] = [
      {
        runId: 'r',
        agent: 'lead',
        kind: 'task.assigned',
        data: { task: 'task-1', agent: 'a', prompt: 'look at src/\nmore', leadStep: 1, callId: 'c' },
      },
      {
        runId: 'r',
        agent: 'a',
        kind: 'task.started',
        data: { task: 'task-1', prompt: 'p', index: 0, stepsBefore: 0 },
      },
      {
        runId: 'r',
        agent: 'a',
        kind: 'task.finished',
        data: { task: 'task-1', agent: 'a', steps: 4, status: 'done', result: 'ok' },
      },
      {
        runId: 'r',
        agent: 'solo',
        kind: 'merge.requested',
        data: { mr: 1, branch: 'agent/solo', commit: 'c'.repeat(40), note: 'fix' },
      },
      {
        runId: 'r',
        agent: null,
        kind: 'merge.landed',
        data: { mr: 1, commit: 'd'.repeat(40), mainBefore: 'e', batch: [1] },
      },
      {
        runId: 'r',
        agent: 'peer-1',
        kind: 'claim.granted',
        data: { claimId: 1, scope: 'src/a', summary: 'fix a', leaseMs: 1000 },
      },
    ];
    const lines = events.map((e) => formatEvent(stored(e)) ?? '');
    expect(lines[0]).toMatch(/assigned task-1 to a: look at src\/$/);
    expect(lines[1]).toMatch(/started task-1/);
    expect(lines[2]).toMatch(/finished task-1: done in 4 step/);
    expect(lines[3]).toMatch(/merge request #1 from agent\/solo: fix/);
    expect(lines[4]).toMatch(/merge request #1 landed on main: dddddddddd/);
    expect(lines[5]).toMatch(/claimed src\/a: fix a/);
    for (const [i, line] of lines.entries()) expect(line, line).not.toContain(events[i]?.kind ?? '?');
  });
  it("says a lead program's step was re-used from an earlier program, not run", () => {
    const line = formatEvent(
      stored({
        runId: 'r',
        agent: null,
        kind: 'step.finished',
        data: {
          step: 'wf2-c/map-0/explore',
          stage: null,
          ok: true,
          attempts: 1,
          value: 'x',
          text: 'x',
          reusedFrom: 'wf1-c/map-0/explore',
        },
      }),
    );
    expect(line).toMatch(/step wf2-c\/map-0\/explore re-used from wf1-c\/map-0\/explore \(not run again\)/);
  });
});
