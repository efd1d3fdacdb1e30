/**
 * The reward formulas on hand-made inputs (docs/trajectory.md): r_parallel's range, r_finish's
 * denominator (an abandoned subagent counts, nothing delegated is null) and r_perf's sources in order
 * (an eval score, then the last acceptance check, then the run's own verify of main).
 */
import { describe, expect, it } from 'vitest';
import type { EventKind, EventPayloads, StoredEvent } from '../../../src/core/events.js';
import { rFinish, rParallel, rPerf } from '../../../src/report/trajectory/index.js';

let seq = 0;
function event<K extends EventKind>(kind: K, agent: string | null, data: EventPayloads[K]): StoredEvent {
  seq += 1;
  return {
    runId: 'r',
    seq,
    ts: new Date(seq * 1000).toISOString(),
    agent,
    kind,
    data,
  } as unknown as StoredEvent;
}

const verify = (agent: string | null, passed: boolean) =>
  event('verify.finished', agent, {
    command: 'npm test',
    exitCode: passed ? 0 : 1,
    passed,
    output: '',
    durationMs: 1,
  });
const acceptance = (round: number, passed: boolean) =>
  event('acceptance.finished', null, { round, passed, failures: [] });

const none = {
  subagentsCreated: 0,
  subagentsAbandoned: 0,
  tasksAssigned: 0,
  tasksDone: 0,
  programSteps: 0,
  programStepsOk: 0,
};

describe('trajectory rewards', () => {
  it('r_parallel = 1 − CriticalSteps / totalSteps, 0 when nothing ran', () => {
    expect(rParallel(13, 13)).toBe(0);
    expect(rParallel(5, 20)).toBe(0.75);
    expect(rParallel(0, 0)).toBe(0);
  });

  it('r_finish counts tasks, program steps and subagents never given a task; null without any', () => {
    expect(rFinish(none)).toBeNull();
    expect(rFinish({ ...none, subagentsCreated: 3, subagentsAbandoned: 3 })).toBe(0);
    expect(
      rFinish({ ...none, subagentsCreated: 2, subagentsAbandoned: 1, tasksAssigned: 3, tasksDone: 2 }),
    ).toBe(2 / (3 + 1));
    expect(rFinish({ ...none, programSteps: 4, programStepsOk: 3 })).toBe(3 / 4);
  });

  it('r_perf: the eval score, else the last acceptance check, else the run verify, else null', () => {
    const checks = [
      verify(null, true),
      verify('acceptance', false),
      acceptance(0, false),
      acceptance(1, true),
    ];
    expect(rPerf(checks, 0.25)).toEqual({ value: 0.25, source: 'eval' });
    expect(rPerf(checks, undefined)).toEqual({ value: 1, source: 'acceptance' });
    expect(rPerf(checks.slice(0, 3), undefined)).toEqual({ value: 0, source: 'acceptance' });
    // The acceptance check's own commands (agent `acceptance`) are not the run's verify.
    expect(rPerf([verify(null, false), verify('acceptance', true)], undefined)).toEqual({
      value: 0,
      source: 'verify',
    });
    expect(rPerf([verify('acceptance', true)], undefined)).toEqual({ value: null, source: null });
    expect(rPerf([], undefined)).toEqual({ value: null, source: null });
  });
});
