/** A workflow program's DAG from events shaped like its log (stages, w.dag `after`, steps, sync points). */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../src/core/events.js';
import { planRun, taskGraphOf } from '../../../src/eval/plan/index.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
let seq = 0;
function ev(agent: string | null, kind: string, data: unknown, atMs: number): StoredEvent {
  seq += 1;
  return {
    runId: 'w',
    agent,
    kind,
    data,
    seq,
    ts: new Date(T0 + atMs).toISOString(),
    hash: '',
    prevHash: '',
  } as StoredEvent;
}
const stage = (id: string, parent: string | null, after: string[], atMs: number) =>
  ev(null, 'stage.started', { stage: id, name: id, parent, after }, atMs);
const stageEnd = (id: string, atMs: number) =>
  ev(null, 'stage.finished', { stage: id, ok: true, durationMs: 0 }, atMs);
const step = (id: string, parent: string | null, atMs: number) =>
  ev(null, 'step.started', { step: id, stage: parent, label: id, profile: 'p', taskHash: 'h' }, atMs);
const attempt = (id: string, parent: string | null, agent: string, atMs: number) =>
  ev(agent, 'step.attempt', { step: id, stage: parent, attempt: 1, agents: [agent], ok: true }, atMs);
const stepEnd = (id: string, parent: string | null, atMs: number) =>
  ev(null, 'step.finished', { step: id, stage: parent, ok: true, attempts: 1 }, atMs);

/**
 * prep (step p, 0–1 s), then stage build with a w.dag: a (1–4 s), b (1–2 s), c after a (4–5 s),
 * then a sync point in build (5–6 s), then step report at the top (6–7 s).
 */
function workflowRun(): StoredEvent[] {
  return [
    ev(
      null,
      'run.started',
      { topology: 'workflow', goal: 'g', repo: '/r', base: 'HEAD', model: 'm', config: {} },
      0,
    ),
    stage('prep', null, [], 0),
    step('prep/p', 'prep', 0),
    attempt('prep/p', 'prep', 'p-1', 1000),
    stepEnd('prep/p', 'prep', 1000),
    stageEnd('prep', 1000),
    stage('build', null, [], 1000),
    stage('build/a', 'build', [], 1000),
    stage('build/b', 'build', [], 1000),
    step('build/a/s', 'build/a', 1000),
    step('build/b/s', 'build/b', 1000),
    stepEnd('build/b/s', 'build/b', 2000),
    stageEnd('build/b', 2000),
    stepEnd('build/a/s', 'build/a', 4000),
    stageEnd('build/a', 4000),
    // c waits for a only, although b also ended before it started.
    stage('build/c', 'build', ['build/a'], 4000),
    step('build/c/s', 'build/c', 4000),
    stepEnd('build/c/s', 'build/c', 5000),
    stageEnd('build/c', 5000),
    ev(
      null,
      'sync.finished',
      {
        step: 'build/sync',
        stage: 'build',
        point: 'build',
        command: 'npm test',
        exitCode: 0,
        passed: true,
        output: '',
        durationMs: 1000,
      },
      6000,
    ),
    stageEnd('build', 6000),
    step('report', null, 6000),
    stepEnd('report', null, 7000),
    ev(null, 'workflow.finished', { ok: true }, 7000),
    ev(null, 'run.finished', { status: 'succeeded', reason: 'done' }, 7500),
  ];
}

describe('the task graph of a workflow program', () => {
  it('has its steps and sync points, ordered by stages, w.dag after and awaited siblings', () => {
    const graph = taskGraphOf('w', workflowRun());
    expect(graph.source).toBe('workflow');
    const deps = new Map(graph.tasks.map((t) => [t.id, [...t.deps].sort()]));
    expect([...deps.keys()].sort()).toEqual([
      'build/a/s',
      'build/b/s',
      'build/c/s',
      'build/sync',
      'prep/p',
      'report',
    ]);
    expect(deps.get('prep/p')).toEqual([]);
    // Inside build: a and b overlap (parallel), both after prep (an earlier sibling of build).
    expect(deps.get('build/a/s')).toEqual(['prep/p']);
    expect(deps.get('build/b/s')).toEqual(['prep/p']);
    // c: its dag predecessor a, and prep through build; not b.
    expect(deps.get('build/c/s')).toEqual(['build/a/s', 'prep/p']);
    // The sync point started after every dag node ended.
    expect(deps.get('build/sync')).toEqual(['build/a/s', 'build/b/s', 'build/c/s', 'prep/p']);
    expect(deps.get('report')).toEqual(['build/a/s', 'build/b/s', 'build/c/s', 'build/sync', 'prep/p']);
    const byId = new Map(graph.tasks.map((t) => [t.id, t]));
    expect(byId.get('build/a/s')).toMatchObject({ durationMs: 3000, startMs: 1000 });
    expect(byId.get('build/sync')).toMatchObject({ durationMs: 1000, startMs: 5000 });
    expect(byId.get('prep/p')?.agent).toBe('p-1');
    expect(graph.measured.activeMs).toBe(7000);
    expect(graph.measured.wallClockMs).toBe(7500);

    const report = planRun(graph, { sizes: [1, 2], seed: 1, samples: 20, sigma: 0.5 });
    // work 1 + 3 + 1 + 1 + 1 + 1 = 8 s; span prep → a → c → sync → report = 7 s.
    expect(report.workMs).toBe(8000);
    expect(report.spanMs).toBe(7000);
    expect(report.criticalPath).toEqual(['prep/p', 'build/a/s', 'build/c/s', 'build/sync', 'report']);
    expect(report.rows.map((r) => r.scheduleMs)).toEqual([8000, 7000]);
  });
});
