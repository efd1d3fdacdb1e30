/**
 * One fold (issue 10 §2): the run summary and its metrics are projections of the view's RunState, so
 * at every point of a run they agree with the dashboard's view of the same state — agents, steps,
 * tokens, cost, the result branch, the critical path — and a workflow run's stage path is read from
 * that state too.
 */
import { describe, expect, it } from 'vitest';
import type { EventKind, EventPayloads, StoredEvent } from '../../src/core/events.js';
import { criticalSteps } from '../../src/view/critical-path.js';
import { toRunMetrics } from '../../src/view/metrics.js';
import { applyEvent, emptyRunState, foldEvents, type RunState } from '../../src/view/run-state.js';
import { toRunView } from '../../src/view/run-view.js';
import { summarise, toRunSummary } from '../../src/view/summary.js';

function log() {
  const events: StoredEvent[] = [];
  const add = <K extends EventKind>(agent: string | null, kind: K, data: EventPayloads[K]) => {
    events.push({
      runId: 'r',
      seq: events.length + 1,
      ts: new Date(10_000 + events.length * 10).toISOString(),
      agent,
      kind,
      data,
      hash: '',
    } as unknown as StoredEvent);
  };
  const steps = new Map<string, number>();
  const respond = (agent: string, tools: string[], input: number, costUsd: number | null = 0.002) => {
    const step = (steps.get(agent) ?? 0) + 1;
    steps.set(agent, step);
    add(agent, 'model.response', {
      step,
      turn: {
        text: '',
        toolCalls: tools.map((name, i) => ({ id: `c${step}-${i}`, name, arguments: '{}' })),
        stopReason: tools.length > 0 ? 'tool_calls' : 'end',
        usage: { input, cachedInput: 3 * input, cacheWrite: 7, output: 11, reasoning: 2 },
        costUsd,
        model: 'm',
      },
      latencyMs: 4,
      requestMessages: 1,
    } as EventPayloads['model.response']);
    for (const [i, name] of tools.entries())
      add(agent, 'tool.finished', {
        step,
        callId: `c${step}-${i}`,
        name,
        isError: false,
        content: '',
        summary: name,
        durationMs: 1,
      });
    return step;
  };
  const started = (agent: string, profile: string) =>
    add(agent, 'agent.started', { profile, model: 'm', task: 't', system: 's', tools: [], maxSteps: 20 });
  const finished = (agent: string) =>
    add(agent, 'agent.finished', {
      status: 'done',
      stopReason: 'answered',
      reason: '',
      steps: 0,
      finalText: '',
    });
  return { events, add, respond, started, finished };
}

/** An orchestrated run: the lead's turns assign tasks of 3 and 5, then 2 steps (CriticalSteps 1+5 + 1+2 + 1). */
function orchestratedRun() {
  const b = log();
  b.add(null, 'run.started', {
    topology: 'orchestrated',
    goal: 'g',
    repo: '/r',
    base: 'x',
    model: 'm',
    config: {},
  });
  b.started('lead', 'lead');
  let n = 0;
  for (const wave of [
    [
      ['a', 3],
      ['b', 5],
    ],
    [['a', 2]],
  ] as Array<Array<[string, number]>>) {
    const leadStep = b.respond(
      'lead',
      wave.map(() => 'assign_task'),
      40,
    );
    for (const [agent, steps] of wave) {
      const task = `task-${++n}`;
      b.add('lead', 'task.assigned', { task, agent, prompt: 'p', leadStep, callId: task });
      if (n <= 2) b.started(agent, 'coder');
      b.add(agent, 'task.started', { task, prompt: 'p', index: 0, stepsBefore: 0 });
      for (let i = 0; i < steps; i++)
        b.respond(agent, i < steps - 1 ? ['bash'] : [], 100 + i, i === 0 ? null : 0.001);
      b.add(agent, 'task.finished', { task, agent, steps, status: 'done', result: 'ok' });
    }
  }
  b.respond('lead', [], 40);
  b.add(null, 'result.fetched', { branch: 'colony/r', commit: 'c', repo: '/r' });
  for (const agent of ['a', 'b', 'lead']) b.finished(agent);
  b.add(null, 'run.finished', { status: 'succeeded', reason: 'ok', resultBranch: 'colony/r' });
  return b.events;
}

/** The summary's figures against the view's, both from one state. */
function expectAgreement(state: RunState) {
  const summary = toRunSummary(state, 'r');
  const view = toRunView(state);
  const { totals } = view;
  expect(summary.steps).toBe(totals.steps);
  expect(summary.modelCalls).toBe(totals.modelCalls);
  expect(summary.toolCalls).toBe(totals.toolCalls);
  expect(summary.costUsd).toBe(totals.costUsd);
  expect(summary.unpricedCalls).toBe(totals.unpricedCalls);
  expect(summary.tokens).toMatchObject({
    input: totals.tokens.uncached,
    cachedInput: totals.tokens.cached,
    cacheWrite: totals.tokens.cacheWrite,
    output: totals.tokens.output,
  });
  expect(summary.agents).toBe(view.agents.filter((a) => a.startedMs !== null).length);
  expect(summary.status).toBe(view.status);
  expect(summary.resultBranch).toBe(view.resultBranch);
  expect(summary.wallClockMs).toBe(view.wallClockMs);
  expect(summary.events).toBe(view.events);
  // Per agent: the summary's accounts are the view's agents that answered.
  const answered = view.agents.filter((a) => a.steps > 0);
  expect(Object.keys(summary.perAgent).sort()).toEqual(answered.map((a) => a.name).sort());
  for (const a of answered)
    expect(summary.perAgent[a.name]).toMatchObject({
      role: a.profile,
      steps: a.steps,
      input: a.tokens.uncached,
      cachedInput: a.tokens.cached,
      output: a.tokens.output,
    });
  return { summary, view };
}

describe('one fold: summary and metrics are projections of the view state', () => {
  it('agrees with the view after every event of an orchestrated run, as a live dashboard folds it', () => {
    const events = orchestratedRun();
    const state = emptyRunState();
    for (const [i, event] of events.entries()) {
      applyEvent(state, event);
      const { summary } = expectAgreement(state);
      // The same figures as folding the prefix from scratch (what `colony show` does).
      expect(summary).toEqual(summarise('r', events.slice(0, i + 1)));
    }
    const { summary, view } = expectAgreement(state);
    // Every task finished: the view's critical path and the summary's CriticalSteps are one number.
    expect(summary.criticalSteps).toBe(1 + 5 + (1 + 2) + 1);
    expect(view.criticalPath).toMatchObject({ method: 'lead-turns', steps: summary.criticalSteps });
    expect(summary.totalSteps).toBe(13);
    expect(summary.agents).toBe(3);
    expect(summary.perRole.coder).toMatchObject({ agents: 2, steps: 10 });
    expect(toRunMetrics(state).leadTurns.map((t) => t.criticalSteps)).toEqual([6, 3, 1]);
  });

  it('names the result branch from result.fetched, before run.finished, in both', () => {
    const events = orchestratedRun();
    const fetched = events.findIndex((e) => e.kind === 'result.fetched');
    const state = foldEvents(events.slice(0, fetched + 1));
    const { summary, view } = expectAgreement(state);
    expect(summary.status).toBe('running');
    expect(view.resultBranch).toBe('colony/r');
  });

  it('reads a workflow run: sequential stages add up, parallel steps count by their slowest', () => {
    const b = log();
    b.add(null, 'run.started', {
      topology: 'workflow',
      goal: 'g',
      repo: '/r',
      base: 'x',
      model: 'm',
      config: {},
    });
    const stage = (id: string, run: () => void) => {
      b.add(null, 'stage.started', { stage: id, name: id, parent: null, after: [] });
      run();
      b.add(null, 'stage.finished', { stage: id, ok: true, durationMs: 1 });
    };
    const step = (id: string, stageId: string) =>
      b.add(null, 'step.started', { step: id, stage: stageId, label: id, profile: 'coder', taskHash: 'h' });
    const attempt = (id: string, stageId: string, agent: string, steps: number) => {
      for (let i = 0; i < steps; i++) b.respond(agent, [], 10);
      b.add(agent, 'step.attempt', { step: id, stage: stageId, attempt: 1, agents: [agent], ok: true });
      b.add(null, 'step.finished', { step: id, stage: stageId, ok: true, attempts: 1 });
    };
    stage('explore', () => {
      // Two steps started together ran in parallel: 3 and 2 steps count as 3.
      step('explore/x', 'explore');
      step('explore/y', 'explore');
      b.started('x', 'coder');
      b.started('y', 'coder');
      attempt('explore/x', 'explore', 'x', 3);
      attempt('explore/y', 'explore', 'y', 2);
    });
    stage('fix', () => {
      step('fix/z', 'fix');
      b.started('z', 'coder');
      attempt('fix/z', 'fix', 'z', 1);
    });
    const state = foldEvents(b.events);
    const { summary, view } = expectAgreement(state);
    expect(criticalSteps(state).steps).toBe(1 + 3 + (1 + 1));
    expect(summary.criticalSteps).toBe(6);
    expect(summary.totalSteps).toBe(6);
    expect(summary.parallelism).toBe(1);
    // The view draws a workflow run as its longest agent (stages are not timeline segments).
    expect(view.criticalPath).toMatchObject({ method: 'longest-agent', steps: 3 });
  });
});
