/**
 * The team metrics in RunSummary, from a hand-written event log of the worked example
 * (lead turns start tasks of 4, 7, 2 and then 5, 5 steps): CriticalSteps 15, total 26, parallelism
 * 1.733, and tokens per agent / role with cached input apart.
 */
import { describe, expect, it } from 'vitest';
import type { EventKind, EventPayloads, StoredEvent } from '../../src/core/events.js';
import { summarise } from '../../src/view/summary.js';

function builder() {
  const events: StoredEvent[] = [];
  const add = <K extends EventKind>(agent: string | null, kind: K, data: EventPayloads[K]) => {
    events.push({
      runId: 'r',
      seq: events.length + 1,
      ts: new Date(1_000 + events.length).toISOString(),
      agent,
      kind,
      data,
      hash: '',
    } as unknown as StoredEvent);
  };
  let step = new Map<string, number>();
  const respond = (
    agent: string,
    tools: string[] = [],
    usage: { input: number; cachedInput: number; output: number; cacheWrite?: number } = {
      input: 10,
      cachedInput: 90,
      output: 5,
    },
  ) => {
    const n = (step.get(agent) ?? 0) + 1;
    step.set(agent, n);
    add(agent, 'model.response', {
      step: n,
      turn: {
        text: '',
        toolCalls: tools.map((name, i) => ({ id: `c${i}`, name, arguments: '{}' })),
        stopReason: tools.length > 0 ? 'tool_calls' : 'end',
        usage: { cacheWrite: 0, reasoning: 0, ...usage },
        costUsd: 0.001,
        model: 'm',
      },
      latencyMs: 1,
      requestMessages: 1,
    } as EventPayloads['model.response']);
    return n;
  };
  const started = (agent: string, profile: string) =>
    add(agent, 'agent.started', { profile, model: 'm', task: 't', system: 's', tools: [], maxSteps: 9 });
  const finished = (agent: string) =>
    add(agent, 'agent.finished', {
      status: 'done',
      stopReason: 'answered',
      reason: '',
      steps: 0,
      finalText: '',
    });
  return { events, add, respond, started, finished, reset: () => (step = new Map()) };
}

describe('summarise: team metrics', () => {
  it('computes the worked example and per-agent / per-role tokens with cached input apart', () => {
    const b = builder();
    b.add(null, 'run.started', {
      topology: 'orchestrated',
      goal: 'g',
      repo: '/r',
      base: 'x',
      model: 'm',
      config: {},
    });
    b.started('lead', 'lead');
    let taskN = 0;
    for (const wave of [
      [
        ['a', 4],
        ['b', 7],
        ['c', 2],
      ],
      [
        ['a', 5],
        ['b', 5],
      ],
    ] as Array<Array<[string, number]>>) {
      const leadStep = b.respond('lead', ['assign_task']);
      for (const [agent, steps] of wave) {
        const task = `task-${++taskN}`;
        b.add('lead', 'task.assigned', { task, agent, prompt: 'p', leadStep, callId: task });
        if (taskN <= 3) b.started(agent, 'explore');
        for (let i = 0; i < steps; i++) b.respond(agent, i < steps - 1 ? ['ls'] : []);
        b.add(agent, 'task.finished', { task, agent, steps, status: 'done', result: 'ok' });
      }
    }
    b.respond('lead');
    for (const agent of ['a', 'b', 'lead']) b.finished(agent);
    const s = summarise('r', b.events);
    expect(s.criticalSteps).toBe(15);
    expect(s.totalSteps).toBe(26);
    expect(s.parallelism).toBe(1.733);
    expect(s.agents).toBe(4);
    expect(s.agentsFinished).toBe(3);
    expect(s.finishRate).toBe(0.75);
    // Lead turns (3 of 26) are coordination; every response reads 10 uncached + 90 cached tokens.
    expect(s.coordinationShareOfInput).toBe(Math.round((3 / 26) * 1000) / 1000);
    expect(s.coordinationShareOfUncachedInput).toBe(Math.round((3 / 26) * 1000) / 1000);
    expect(s.perAgent.b).toEqual({
      role: 'explore',
      model: 'm',
      maxSteps: 9,
      steps: 12,
      input: 120,
      cachedInput: 1080,
      output: 60,
      costUsd: 0.012,
    });
    expect(s.perRole.explore).toMatchObject({
      agents: 3,
      steps: 23,
      input: 230,
      cachedInput: 2070,
      output: 115,
    });
    expect(s.perRole.lead).toMatchObject({ agents: 1, steps: 3 });
    // The run totals agree with the per-agent accounts.
    expect(s.tokens.cachedInput).toBe(26 * 90);
  });

  it('counts cached input in one coordination share and leaves it out of the other', () => {
    const b = builder();
    b.started('peer-1', 'coder');
    b.started('peer-2', 'coder');
    const usage = (input: number, cachedInput: number, cacheWrite = 0) => ({
      input,
      cachedInput,
      cacheWrite,
      output: 1000,
    });
    // Coordination turns (every call a coordination tool): uncached 100 + 50, all input 1000 + 2000.
    b.respond('peer-1', ['claim'], usage(100, 900));
    b.respond('peer-1', ['merge_request'], usage(50, 1450, 500));
    b.respond('peer-2', ['context_read', 'message_send'], usage(0, 0));
    // Work: a coder tool, a mixed turn, an answer without tool calls. Uncached 300 + 100 + 50, all 400 + 1550 + 50.
    b.respond('peer-1', ['write'], usage(300, 100));
    b.respond('peer-2', ['claim', 'bash'], usage(100, 1450));
    b.respond('peer-2', [], usage(50, 0));
    const s = summarise('r', b.events);
    // Uncached input: 150 of 600. All input: 3000 of 5000. Output tokens (1000 a turn) count in neither.
    expect(s.coordinationShareOfUncachedInput).toBe(0.25);
    expect(s.coordinationShareOfInput).toBe(0.6);
  });

  it('keeps the run-level verify over an agent-level one and reports the acceptance round', () => {
    const b = builder();
    const verify = (agent: string | null, command: string, passed: boolean) =>
      b.add(agent, 'verify.finished', {
        command,
        exitCode: passed ? 0 : 1,
        passed,
        output: '',
        durationMs: 1,
      });
    verify(null, 'npm test', true);
    verify('acceptance', 'e2e', false);
    b.add(null, 'acceptance.finished', { round: 1, passed: true, failures: [] });
    const s = summarise('r', b.events);
    expect(s.verify?.command).toBe('npm test');
    expect(s.acceptance).toEqual({ round: 1, passed: true });
    // No lead: one parallel stage, CriticalSteps is the longest agent (none here).
    expect(s.criticalSteps).toBe(0);
    expect(s.parallelism).toBe(0);
  });
});
