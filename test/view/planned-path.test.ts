/**
 * The plan's CriticalSteps in the summary (view/critical-path.ts plannedPath, from workflow.planned):
 * DAGs one after another add up; a DAG inside another DAG's node is not counted again; none → null.
 */
import { describe, expect, it } from 'vitest';
import type { EventPayloads, StoredEvent } from '../../src/core/events.js';
import { plannedPath } from '../../src/view/critical-path.js';
import { foldEvents } from '../../src/view/run-state.js';

type Planned = EventPayloads['workflow.planned'];

function planned(data: Planned, seq: number): StoredEvent {
  return {
    runId: 'r',
    agent: null,
    kind: 'workflow.planned',
    data,
    seq,
    ts: new Date(1_000 * seq).toISOString(),
  } as unknown as StoredEvent;
}

const plan = (dag: string, stage: string | null, path: string[], steps: number, nodes = path): Planned => ({
  dag,
  stage,
  nodes: nodes.map((id) => ({ stage: id, name: id, after: [], weight: 1, recorded: false, rank: 1 })),
  criticalPath: path,
  criticalSteps: steps,
});

describe('plannedPath', () => {
  it('is null without a plan', () => {
    expect(plannedPath(foldEvents([]))).toBeNull();
  });

  it('adds DAGs one after another and skips a DAG inside another DAG node', () => {
    const state = foldEvents([
      planned(plan('a', null, ['a', 'b'], 2), 1),
      // Inside node b of the first DAG: its weight already stands for it.
      planned(plan('b/x', 'b', ['b/x'], 5), 2),
      planned(plan('review/c', 'review', ['review/c', 'review/d', 'review/e'], 3), 3),
    ]);
    expect(plannedPath(state)).toEqual({
      criticalSteps: 5,
      criticalPath: ['a', 'b', 'review/c', 'review/d', 'review/e'],
    });
  });
});
