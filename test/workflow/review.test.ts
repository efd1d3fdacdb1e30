/**
 * The map-reduce review example end to end (examples/workflows/review.ts on examples/review-repo):
 * four explorers in parallel with the demo's scripted model; risks merged, de-duplicated and ranked;
 * the one invalid answer repaired; CriticalSteps from the stage/step events.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoRepo } from '../../src/demo/demo-repo.js';
import { reviewDemoPolicy } from '../../src/demo/review-policy.js';
import type { Store } from '../../src/store/index.js';
import { workflowCriticalPath } from '../../src/view/critical-path.js';
import { computeMetrics } from '../../src/view/metrics.js';
import { openTestStore } from '../helpers/db.js';
import { ofKind, runWorkflowFile, type WorkflowRunResult } from './run-helper.js';

interface Ranked {
  title: string;
  file: string;
  line: number;
  severity: string;
  reportedBy: string[];
  score: number;
}

let store: Store;
let run: WorkflowRunResult;

beforeAll(async () => {
  store = await openTestStore();
  run = await runWorkflowFile(store, {
    file: join(import.meta.dirname, '..', '..', 'examples', 'workflows', 'review.ts'),
    repo: createDemoRepo('review-repo'),
    policy: reviewDemoPolicy,
    latencyMs: 30,
  });
});

afterAll(async () => {
  await store?.close();
});

describe('review workflow', () => {
  it('merges, de-duplicates and ranks the risks of four explorers', () => {
    expect(run.summary.status, run.summary.reason ?? '').toBe('succeeded');
    const value = run.result?.value as { reported: number; risks: Ranked[]; failedAreas: unknown[] };
    expect(value.failedAreas).toEqual([]);
    expect(value.reported).toBe(8);
    expect(value.risks).toHaveLength(7);
    const locations = value.risks.map((r) => `${r.file}:${r.line}`);
    expect(new Set(locations).size).toBe(7);
    // Found independently by two explorers: strongest evidence, ranked first.
    expect(value.risks[0]).toMatchObject({
      file: 'src/db/query.js',
      line: 4,
      reportedBy: ['src/api', 'src/db'],
    });
    expect(value.risks.at(-1)).toMatchObject({ file: 'src/util/cache.js', severity: 'low' });
    const scores = value.risks.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('ran the four explorers at once, each reading real files', () => {
    const started = ofKind(run.events, 'agent.started');
    const explorers = started.filter((e) => e.data.profile === 'explore');
    expect(explorers.map((e) => e.agent)).toEqual(
      expect.arrayContaining(['explore.map-0.explorer', 'explore.map-1.explorer', 'explore.map-2.explorer']),
    );
    const firstFinish = Math.min(...ofKind(run.events, 'agent.finished').map((e) => e.seq));
    const startedBeforeAnyFinished = explorers.filter((e) => e.seq < firstFinish);
    expect(startedBeforeAnyFinished).toHaveLength(4);
    const reads = ofKind(run.events, 'tool.finished').filter(
      (e) => e.data.name === 'read' && !e.data.isError,
    );
    expect(reads.some((e) => e.data.content.includes('hunter2-prod-secret'))).toBe(true);
  });

  it('repairs the explorer whose answer did not match the schema', () => {
    const attempts = ofKind(run.events, 'step.attempt');
    const repaired = attempts.filter((a) => a.data.agents.some((agent) => agent.endsWith('+r')));
    expect(repaired).toHaveLength(1);
    expect(repaired[0]?.data).toMatchObject({ ok: true, step: 'explore/map-3/explorer' });
  });

  it('computes CriticalSteps by stage', () => {
    const path = workflowCriticalPath(run.events);
    // explore: 1 + the slowest explorer (api: ls, read, follow into db, answer = 4); merge: 1 + 0.
    expect(path.stages).toEqual([
      { stage: 'explore', criticalSteps: 5 },
      { stage: 'merge', criticalSteps: 1 },
    ]);
    expect(path.criticalSteps).toBe(6);
    expect(path.totalSteps).toBe(run.summary.steps);
    // The run metrics (colony show, --json) use the same stage critical path for a workflow.
    const metrics = computeMetrics(run.events);
    expect(metrics.criticalSteps).toBe(6);
    expect(metrics.parallelism).toBeCloseTo(run.summary.steps / 6, 5);
  });
});
