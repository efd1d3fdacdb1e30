/** `--check`'s arithmetic on small graphs, and task files (`--tasks`) with their errors. */
import { describe, expect, it } from 'vitest';
import { checkPlan, parseTaskFile, planRun, type TaskGraph } from '../../../src/eval/plan/index.js';
import { independent, task } from './dags.js';

const options = { seed: 1, samples: 400, sigma: 0.5 };

/** Four independent tasks run by 2 agents in 5 s of tasks, inside 6 s of wall clock. */
function recorded(overrides: Partial<TaskGraph['measured']> = {}, tasks = independent): TaskGraph {
  return {
    runId: 'team',
    source: 'agents',
    goal: 'g',
    tasks: tasks.map((t) => ({ ...t, startMs: 500 })),
    measured: { wallClockMs: 6000, costUsd: 1, agents: 2, teamSize: 2, activeMs: 5000, ...overrides },
  };
}

describe('colony plan --check', () => {
  it('predicts at the run’s team size with its overhead, and scores the measured values', () => {
    const run = recorded();
    const result = checkPlan(run, run, options);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const r = result.report;
    expect(r.p).toBe(2);
    expect(r.fromRunId).toBe('team');
    expect(r.sameGoal).toBe(true);
    // Overhead: 6 s wall − 5 s of tasks; the list schedule of 3,3,2,2 on 2 agents is 5 s.
    expect(r.overheadMs).toBe(1000);
    expect(r.scheduleMs).toBe(6000);
    // The replay of the recorded durations meets the wall clock: the graph misses nothing here.
    expect(r.scheduleRelError).toBe(0);
    const m = r.makespanMs;
    expect(m.band.p10).toBeLessThan(m.predicted);
    expect(m.predicted).toBeLessThan(m.band.p90);
    expect(m.measured).toBe(6000);
    expect(m.error).toBeCloseTo(m.predicted - 6000, 9);
    expect(m.relError).toBeCloseTo((m.predicted - 6000) / 6000, 9);
    expect(m.inBand).toBe(true);
    expect(r.costUsd?.measured).toBe(1);
    expect(r.costUsd?.inBand).toBe(true);
  });

  it('a solo run predicting a team: its one task cannot be split, so the team is predicted no faster', () => {
    const solo: TaskGraph = {
      runId: 'solo',
      source: 'agents',
      goal: 'g',
      tasks: [{ ...task('agent', 10_000), startMs: 1000 }],
      measured: { wallClockMs: 12_000, costUsd: 1, agents: 1, teamSize: 1, activeMs: 10_000 },
    };
    const team = recorded({ wallClockMs: 6000, costUsd: 3, teamSize: 4 });
    const result = checkPlan(team, solo, options);
    if (!result.ok) throw new Error(result.error);
    expect(result.report.p).toBe(4);
    expect(result.report.scheduleMs).toBe(12_000);
    expect(result.report.makespanMs.relError).toBeGreaterThan(0.5);
    expect(result.report.makespanMs.inBand).toBe(false);
    // The team's cost (3× the solo's) lies outside a band centred on the solo's cost.
    expect(result.report.costUsd?.relError).toBeLessThan(-0.5);
    expect(result.report.costUsd?.inBand).toBe(false);
  });

  it('says when the goals differ, when the run has no cost, and refuses a graph without tasks', () => {
    const other = { ...recorded(), runId: 'other', goal: 'another goal' };
    const differs = checkPlan(recorded({ costUsd: null }), other, options);
    if (!differs.ok) throw new Error(differs.error);
    expect(differs.report.sameGoal).toBe(false);
    expect(differs.report.costUsd?.measured).toBeNull();
    expect(differs.report.costUsd?.inBand).toBeNull();
    const empty = { ...recorded(), tasks: [] };
    expect(checkPlan(recorded(), empty, options)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no tasks/),
    });
  });
});

describe('a task file (plan before any run)', () => {
  const file = (tasks: unknown, v: unknown = 1) => JSON.stringify({ v, tasks });

  it('plans from estimates, dependencies and files', () => {
    const parsed = parseTaskFile(
      file([
        { id: 'api', estimateMs: 60_000, files: ['src/api.ts'], costUsd: 0.5 },
        { id: 'ui', estimateMs: 30_000, files: ['src/api.ts', 'src/ui.ts'], costUsd: 0.25 },
        { id: 'docs', estimateMs: 10_000, after: ['api', 'ui'], costUsd: 0.1 },
      ]),
      'tasks.json',
    );
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.graph.source).toBe('file');
    expect(parsed.graph.measured).toMatchObject({ wallClockMs: null, activeMs: null, teamSize: 1 });
    expect(parsed.graph.measured.costUsd).toBeCloseTo(0.85, 9);
    const report = planRun(parsed.graph, { sizes: [1, 2], seed: 1, samples: 50, sigma: 0.5 });
    expect(report.workMs).toBe(100_000);
    expect(report.spanMs).toBe(70_000);
    expect(report.conflictPairs).toBe(1);
    // api and ui share src/api.ts, so even 2 agents run them one after the other.
    expect(report.rows.map((r) => r.scheduleMs)).toEqual([100_000, 100_000]);
    expect(report.rows[1]?.conflictPenaltyMs).toBe(30_000);
  });

  it('names what is wrong', () => {
    const error = (text: string) => {
      const parsed = parseTaskFile(text, 'tasks.json');
      return parsed.ok ? '' : parsed.error;
    };
    expect(error('{')).toMatch(/tasks.json is not JSON/);
    expect(error(file([{ id: 'a', estimateMs: 1 }], 2))).toMatch(/not a task file \(v 1\): v/);
    expect(error(file([{ id: 'a' }]))).toMatch(/tasks\.0\.estimateMs/);
    expect(error(file([{ id: 'a', estimateMs: 1, after: ['b'] }]))).toMatch(
      /task a is after b, which is not a task/,
    );
    expect(
      error(
        file([
          { id: 'a', estimateMs: 1 },
          { id: 'a', estimateMs: 2 },
        ]),
      ),
    ).toMatch(/a appears twice/);
    expect(
      error(
        file([
          { id: 'a', estimateMs: 1, after: ['b'] },
          { id: 'b', estimateMs: 1, after: ['a'] },
        ]),
      ),
    ).toMatch(/cycle/);
    expect(error(file([]))).toMatch(/tasks/);
  });
});
