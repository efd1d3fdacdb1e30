/**
 * The workflow engine in a real run (Postgres, git, the agent loop; scripted model): a DAG node starts
 * only after its predecessors finished, an invalid structured output gets one repair, a failing step is
 * retried, a slow one times out, keyed steps run once, a sync point runs on hub main.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/providers/scripted.js';
import type { Store } from '../../src/store/index.js';
import { workflowCriticalPath } from '../../src/view/critical-path.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { ofKind, runWorkflowFile, taskOf, type WorkflowRunResult } from './run-helper.js';

let store: Store;
let run: WorkflowRunResult;
const tasks: string[] = [];
let flakyCalls = 0;
/** The program's returned value. */
const result = <T>() => (run.result?.value ?? {}) as T;

const policy: ScriptedPolicy = async (request) => {
  const task = taskOf(request);
  tasks.push(task);
  const dag = /^\[dag:(\w)\]/.exec(task);
  if (dag) return { text: `${dag[1]}-done` };
  if (task.startsWith('[repair]')) {
    return task.includes('Your previous answer was not accepted')
      ? { text: '{"count": 6}' }
      : { text: '{"count": "six"}' };
  }
  if (task.startsWith('[flaky]')) {
    flakyCalls += 1;
    if (flakyCalls === 1) throw new Error('provider fell over');
    return { text: 'flaky-ok' };
  }
  if (task.startsWith('[slow]')) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { text: 'too late' };
  }
  if (task.startsWith('[dup]')) return { text: 'dup-answer' };
  throw new Error(`unexpected task: ${task.slice(0, 80)}`);
};

beforeAll(async () => {
  store = await openTestStore();
  const repo = createUserRepo({ 'README.md': '# demo\n', 'src/a.js': 'export const a = 1;\n' });
  run = await runWorkflowFile(store, {
    file: join(import.meta.dirname, 'fixtures', 'engine-program.ts'),
    repo: repo.dir,
    policy,
    args: { area: 'src' },
    latencyMs: 20,
  });
});

afterAll(async () => {
  await store?.close();
});

describe('workflow engine', () => {
  it('finishes the run with the program result', () => {
    expect(run.summary.status, run.summary.reason ?? '').toBe('succeeded');
    expect(run.result?.ok).toBe(true);
    expect(result<{ args: unknown }>().args).toEqual({ area: 'src' });
  });

  it('starts a DAG node only after its predecessors finished, with their results', () => {
    const value = result<{ dag: Record<string, string> }>();
    expect(value.dag).toEqual({ a: 'a-done', b: 'b-done', c: 'c-done', d: 'd-done' });
    expect(tasks).toContain('[dag:d] after b-done and c-done');
    const seqOf = (kind: 'stage.started' | 'stage.finished', stage: string) =>
      ofKind(run.events, kind).find((e) => e.data.stage === stage)?.seq ?? Number.NaN;
    expect(seqOf('stage.started', 'b')).toBeGreaterThan(seqOf('stage.finished', 'a'));
    expect(seqOf('stage.started', 'c')).toBeGreaterThan(seqOf('stage.finished', 'a'));
    expect(seqOf('stage.started', 'd')).toBeGreaterThan(seqOf('stage.finished', 'b'));
    expect(seqOf('stage.started', 'd')).toBeGreaterThan(seqOf('stage.finished', 'c'));
    const d = ofKind(run.events, 'stage.started').find((e) => e.data.stage === 'd');
    expect(d?.data.after).toEqual(['b', 'c']);
  });

  it('repairs an invalid structured output once, telling the agent what was wrong', () => {
    const value = result<{ repaired: unknown; repairedAttempts: number }>();
    expect(value.repaired).toEqual({ count: 6 });
    expect(value.repairedAttempts).toBe(1);
    const repairTask = tasks.find((t) => t.startsWith('[repair]') && t.includes('not accepted'));
    expect(repairTask).toContain('count');
    expect(repairTask).toContain('{"count": "six"}');
    const attempt = ofKind(run.events, 'step.attempt').find((e) => e.data.step === 'explore');
    expect(attempt?.data.agents).toEqual(['explore', 'explore+r']);
  });

  it('retries a failed step with a fresh agent', () => {
    const value = result<{ flaky: { value: string; attempts: number } }>();
    expect(value.flaky).toEqual({ value: 'flaky-ok', attempts: 2 });
    const attempts = ofKind(run.events, 'step.attempt').filter((e) => e.data.step === 'explore_2');
    expect(attempts.map((a) => a.data.ok)).toEqual([false, true]);
    expect(attempts[1]?.data.agents).toEqual(['explore_2+2']);
  });

  it('times out a slow step', () => {
    expect(result<{ slow: string }>().slow).toBe('timeout');
  });

  it('runs steps with the same key once', () => {
    expect(result<{ dups: string[] }>().dups).toEqual(['key/same-thing', 'key/same-thing']);
    expect(tasks.filter((t) => t.startsWith('[dup]'))).toHaveLength(1);
  });

  it('runs a sync point on hub main', () => {
    expect(result<{ built: boolean }>().built).toBe(true);
    const sync = ofKind(run.events, 'sync.finished')[0];
    expect(sync?.data).toMatchObject({ point: 'build', passed: true, step: 'sync-build' });
  });

  it('counts a DAG by its longest chain in CriticalSteps', () => {
    const path = workflowCriticalPath(run.events);
    // Nodes cost 1 + 1 step each; b and c ran in parallel: a → b|c → d = 6.
    expect(path.stages).toEqual([
      { stage: 'a', criticalSteps: 2 },
      { stage: 'b', criticalSteps: 2 },
      { stage: 'c', criticalSteps: 2 },
      { stage: 'd', criticalSteps: 2 },
    ]);
    // Then the top-level steps one after another: repair 1 + 1, flaky 0 + 1, slow 0 (its call was
    // stopped by the time-out, no response), keyed 1.
    expect(path.criticalSteps).toBe(6 + 2 + 1 + 0 + 1);
    expect(path.totalSteps).toBe(run.summary.steps);
  });
});
