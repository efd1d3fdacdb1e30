/**
 * Recorded node weights (src/workflow/stage-history.ts) in real runs (Postgres, git, the agent loop;
 * scripted model): the first run of a program plans every DAG node at weight 1; a second run of the
 * same program weighs each node by the steps the first one measured, and its plan's CriticalSteps
 * equals the measured CriticalSteps. Both summaries carry the plan next to the measured figure.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/summary-text.js';
import type { ScriptedPolicy } from '../../src/model/providers/scripted.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { ofKind, runWorkflowFile, taskOf, type WorkflowRunResult } from './run-helper.js';

let store: Store;
let first: WorkflowRunResult;
let second: WorkflowRunResult;

const policy: ScriptedPolicy = async (request) => {
  const node = /^\[node:(\w+)\]/.exec(taskOf(request));
  if (!node) throw new Error(`unexpected task: ${taskOf(request).slice(0, 80)}`);
  return { text: `${node[1]}-done` };
};

beforeAll(async () => {
  store = await openTestStore();
  const repo = createUserRepo({ 'README.md': '# demo\n' });
  const file = join(import.meta.dirname, 'fixtures', 'critical-path-dag.ts');
  first = await runWorkflowFile(store, { file, repo: repo.dir, policy, concurrency: 2 });
  second = await runWorkflowFile(store, { file, repo: repo.dir, policy, concurrency: 2 });
});

afterAll(async () => {
  await store?.close();
});

const CHAIN = ['a1', 'a2', 'a3', 'a4'];

describe('DAG plans weighed by earlier runs of the same program', () => {
  it('plans the first run with weight 1 per node', () => {
    expect(first.summary.status, first.summary.reason ?? '').toBe('succeeded');
    const planned = ofKind(first.events, 'workflow.planned');
    expect(planned).toHaveLength(1);
    expect(planned[0]?.data.nodes.every((n) => n.weight === 1 && !n.recorded)).toBe(true);
    expect(planned[0]?.data.criticalPath).toEqual(CHAIN);
    expect(first.summary.plannedCriticalSteps).toBe(4);
    expect(first.summary.plannedCriticalPath).toEqual(CHAIN);
    // The summary's text puts the plan (before the run) next to the measured CriticalSteps.
    expect(formatSummary(first.summary)).toContain(
      'plan: CriticalSteps 4 before the run (a1 → a2 → a3 → a4) · measured 8',
    );
  });

  it('gives the chain one of the 2 slots from the start in a real run', () => {
    // The ready nodes ask for slots while the scheduler holds; a1 (rank 4) and s1 (rank 1, declared
    // first) get them. Later starts depend on which agent finishes first: not asserted.
    for (const run of [first, second]) {
      const started = ofKind(run.events, 'agent.started').map((e) => e.agent ?? '');
      expect(started.slice(0, 2).sort()).toEqual(['a1.x', 's1.x']);
      expect(started).toHaveLength(8);
    }
  });

  it('weighs the second run by the steps the first measured: the plan equals the measurement', () => {
    expect(second.summary.status, second.summary.reason ?? '').toBe('succeeded');
    const planned = ofKind(second.events, 'workflow.planned')[0]?.data;
    // Each node is a stage of one one-step agent: 1 + 1 = 2 measured steps.
    expect(planned?.nodes.map((n) => [n.stage, n.weight, n.recorded])).toEqual(
      ['s1', 's2', 's3', 's4', ...CHAIN].map((id) => [id, 2, true]),
    );
    expect(planned?.criticalSteps).toBe(8);
    expect(second.summary.plannedCriticalSteps).toBe(8);
    expect(second.summary.criticalSteps).toBe(8);
    expect(first.summary.criticalSteps).toBe(8);
  });
});
