/** The task graph of an orchestrated run, from events shaped like its log (no store, no model). */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../src/core/events.js';
import { formatPlan, planRun, planSizes, taskGraphOf } from '../../../src/eval/plan/index.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
let seq = 0;
function ev(agent: string | null, kind: string, data: unknown, offsetMs: number): StoredEvent {
  seq += 1;
  return {
    runId: 'r',
    agent,
    kind,
    data,
    seq,
    ts: new Date(T0 + offsetMs).toISOString(),
    hash: '',
    prevHash: '',
  } as StoredEvent;
}
const response = (step: number, latencyMs: number, tools: string[]) => ({
  step,
  turn: {
    text: '',
    toolCalls: tools.map((name, i) => ({ id: `c${step}-${i}`, name, arguments: '{}' })),
    stopReason: tools.length > 0 ? 'tool_calls' : 'stop',
    usage: { input: 100, cachedInput: 0, cacheWrite: 0, output: 10, reasoning: 0 },
    costUsd: 0.5,
    model: 'm',
  },
  latencyMs,
  requestMessages: 1,
});
const assigned = (task: string, agent: string) => ({ task, agent, prompt: 'p', leadStep: 1, callId: task });
const finished = (task: string, agent: string, steps: number) => ({
  task,
  agent,
  steps,
  status: 'done',
  result: 'ok',
});

/** lead#1 (1 s) assigns task-1 to a (4 s, 3 steps) and task-2 to b (2 s, 2 steps); lead#2 (1 s) answers. */
function orchestratedRun(filesA: string[], filesB: string[]): StoredEvent[] {
  return [
    ev(
      null,
      'run.started',
      { topology: 'orchestrated', goal: 'g', repo: '/r', base: 'HEAD', model: 'm', config: {} },
      0,
    ),
    ev('lead', 'model.response', response(1, 1000, ['assign_task', 'assign_task']), 1000),
    ev('lead', 'task.assigned', assigned('task-1', 'a'), 1000),
    ev('lead', 'task.assigned', assigned('task-2', 'b'), 1000),
    ev('a', 'task.started', { task: 'task-1', prompt: 'p', index: 0, stepsBefore: 0 }, 1000),
    ev('b', 'task.started', { task: 'task-2', prompt: 'p', index: 0, stepsBefore: 0 }, 1000),
    ev('b', 'merge.requested', { mr: 1, branch: 'b', commit: 'c1', note: '' }, 2900),
    ev(
      'integrator',
      'merge.landed',
      { mr: 1, commit: 'm1', mainBefore: 'm0', batch: [1], files: filesB },
      2950,
    ),
    ev('b', 'task.finished', finished('task-2', 'b', 2), 3000),
    ev('a', 'merge.requested', { mr: 2, branch: 'a', commit: 'c2', note: '' }, 4900),
    ev(
      'integrator',
      'merge.landed',
      { mr: 2, commit: 'm2', mainBefore: 'm1', batch: [2], files: filesA },
      4950,
    ),
    ev('a', 'task.finished', finished('task-1', 'a', 3), 5000),
    ev('lead', 'model.response', response(2, 1000, []), 6000),
    ev(null, 'run.finished', { status: 'succeeded', reason: 'done' }, 6100),
  ];
}

describe('the task graph of an orchestrated run', () => {
  it('has lead turns and tasks with their waits, durations, steps and landed files', () => {
    const graph = taskGraphOf('r', orchestratedRun(['src/x.ts'], ['src/y.ts']));
    expect(graph.source).toBe('orchestrated');
    const byId = new Map(graph.tasks.map((t) => [t.id, t]));
    expect([...byId.keys()].sort()).toEqual(['lead#1', 'lead#2', 'task-1', 'task-2']);
    expect(byId.get('lead#1')).toMatchObject({ durationMs: 1000, steps: 1, deps: [] });
    expect(byId.get('task-1')).toMatchObject({
      durationMs: 4000,
      steps: 3,
      deps: ['lead#1'],
      files: ['src/x.ts'],
    });
    expect(byId.get('task-2')).toMatchObject({
      durationMs: 2000,
      steps: 2,
      deps: ['lead#1'],
      files: ['src/y.ts'],
    });
    expect([...(byId.get('lead#2')?.deps ?? [])].sort()).toEqual(['lead#1', 'task-1', 'task-2']);

    const report = planRun(graph, { sizes: [1, 2], seed: 1, samples: 20, sigma: 0.5 });
    expect(report.workMs).toBe(8000);
    expect(report.spanMs).toBe(6000);
    expect(report.spanSteps).toBe(5);
    expect(report.criticalPath).toEqual(['lead#1', 'task-1', 'lead#2']);
    expect(report.conflictPairs).toBe(0);
    expect(report.rows.map((r) => r.scheduleMs)).toEqual([8000, 6000]);
    expect(report.rows[0]?.costUsd?.p50).toBeGreaterThan(0);
  });

  it('serialises tasks whose landed files overlap: the conflict penalty', () => {
    const graph = taskGraphOf('r', orchestratedRun(['src/x.ts', 'src/shared.ts'], ['src/shared.ts']));
    const report = planRun(graph, { sizes: [2], seed: 1, samples: 20, sigma: 0.5 });
    expect(report.conflictPairs).toBe(1);
    const [two] = report.rows;
    expect(two?.scheduleNoConflictMs).toBe(6000);
    expect(two?.scheduleMs).toBe(8000);
    expect(two?.conflictPenaltyMs).toBe(2000);
  });
});

/** A peers run of three peers, one independent 2 s task each, and the queue's message. */
function peersRun(): StoredEvent[] {
  const started = (agent: string, at: number) =>
    ev(
      agent,
      'agent.started',
      { profile: 'peer', model: 'm', task: 'g', system: '', tools: [], maxSteps: 9 },
      at,
    );
  return [
    ev(
      null,
      'run.started',
      { topology: 'peers', goal: 'g', repo: '/r', base: 'HEAD', model: 'm', config: { agents: 3 } },
      0,
    ),
    ...['peer-1', 'peer-2', 'peer-3'].flatMap((peer) => [
      started(peer, 10),
      ev(peer, 'model.response', response(1, 2000, []), 2010),
    ]),
    // The integration queue tells a peer its merge landed: a sender, not an agent.
    ev('integration', 'message.sent', { id: 1, to: 'peer-1', channel: null, text: 'landed' }, 1500),
    ev(null, 'run.finished', { status: 'succeeded', reason: 'done' }, 3100),
  ];
}

describe('the plan of a peers run (issue 33)', () => {
  it('counts only agents: the integration queue is a sender, not a fourth agent', () => {
    const graph = taskGraphOf('r', peersRun());
    expect(graph.source).toBe('agents');
    expect(graph.tasks).toHaveLength(3);
    expect(graph.measured).toMatchObject({ agents: 3, teamSize: 3 });
    expect(formatPlan(planRun(graph, { sizes: [1, 3], seed: 1, samples: 10, sigma: 0.5 }))).toContain(
      'with team size 3 of 3 agents',
    );
  });

  it('plans every team size up to the task count by default, so 3 independent tasks get 3 agents', () => {
    const report = planRun(taskGraphOf('r', peersRun()));
    expect(report.rows.map((r) => r.p)).toEqual([1, 2, 3]);
    expect(report.options.sizes).toEqual([1, 2, 3]);
    expect(report.recommendation?.p).toBe(3);
  });

  it('stops at the most tasks that can run at once: two of three share a file, so 2 agents', () => {
    const graph = taskGraphOf('r', peersRun());
    const shared = graph.tasks.map((t, i) => ({ ...t, files: i < 2 ? ['src/a.ts'] : ['src/b.ts'] }));
    const report = planRun({ ...graph, tasks: shared });
    expect(report.rows.map((r) => r.p)).toEqual([1, 2]);
  });

  it('plans sizes 1 … 32 densely, then doubling, ending at the width', () => {
    expect(planSizes(0)).toEqual([1]);
    expect(planSizes(1)).toEqual([1]);
    expect(planSizes(5)).toEqual([1, 2, 3, 4, 5]);
    expect(planSizes(40)).toEqual([...Array.from({ length: 32 }, (_, i) => i + 1), 40]);
    expect(planSizes(300).slice(31)).toEqual([32, 64, 128, 256, 300]);
  });
});
