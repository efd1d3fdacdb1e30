import { describe, expect, it } from 'vitest';
import {
  sampleSimTasks,
  simTruthFrom,
  trueDifference,
  truePassRate,
} from '../../../src/eval/sim/sim-population.js';
import { type SimTruth, simArm } from '../../../src/eval/sim/sim-truth.js';
import { simArms, simulateTrials } from '../../../src/eval/sim/simulate-trials.js';
import { trialRecordSchema } from '../../../src/eval/trial-record.js';

const ARMS = [simArm('solo', 1), simArm('team-8', 8)];

function truth(pass: Record<string, number>, extra: Partial<SimTruth> = {}): SimTruth {
  return {
    label: 'sim',
    arms: ARMS,
    tasks: [{ task: 't', repo: 'r', steps: 40, pass }],
    timeoutShare: 0.25,
    infraErrorRate: 0,
    ...extra,
  };
}

describe('simulateTrials (the sim: truth model)', () => {
  it('writes valid v1 trial records, the same for the same seed', () => {
    const t = truth({ solo: 0.5, 'team-8': 0.5 });
    const a = simulateTrials(t, { trials: 20, seed: 3 });
    expect(a).toHaveLength(40);
    for (const r of a) expect(trialRecordSchema.safeParse(r).success).toBe(true);
    expect(simulateTrials(t, { trials: 20, seed: 3 })).toEqual(a);
    expect(simulateTrials(t, { trials: 20, seed: 4 })).not.toEqual(a);
    expect(simArms(t).every((arm) => arm.model === 'sim:truth-model')).toBe(true);
  });

  it('passes at the true rate; time-outs are failures; infra errors at their rate', () => {
    const t = truth({ solo: 0.3, 'team-8': 0.8 }, { infraErrorRate: 0.1 });
    const records = simulateTrials(t, { trials: 4000, seed: 1 });
    for (const [arm, p] of [
      ['solo', 0.3],
      ['team-8', 0.8],
    ] as const) {
      const mine = records.filter((r) => r.arm === arm);
      const graded = mine.filter((r) => r.outcome !== 'infra_error');
      const passes = graded.filter((r) => r.outcome === 'pass').length;
      // 4,000 draws: the standard error is below 0.8 pp.
      expect(passes / graded.length).toBeCloseTo(p, 1);
      expect(Math.abs(passes / graded.length - p)).toBeLessThan(0.03);
      expect(Math.abs((mine.length - graded.length) / mine.length - 0.1)).toBeLessThan(0.02);
      const failures = graded.filter((r) => r.outcome !== 'pass');
      const timeouts = failures.filter((r) => r.outcome === 'timeout').length;
      expect(Math.abs(timeouts / failures.length - 0.25)).toBeLessThan(0.04);
    }
  });

  it('a bigger team has a shorter critical path but more steps in total (Amdahl, coordination)', () => {
    const records = simulateTrials(truth({ solo: 1, 'team-8': 1 }), { trials: 200, seed: 2 });
    const avg = (arm: string, f: (r: (typeof records)[number]) => number) => {
      const mine = records.filter((r) => r.arm === arm);
      return mine.reduce((s, r) => s + f(r), 0) / mine.length;
    };
    expect(avg('team-8', (r) => r.criticalSteps)).toBeLessThan(avg('solo', (r) => r.criticalSteps));
    expect(avg('team-8', (r) => r.costUsd)).toBeGreaterThan(avg('solo', (r) => r.costUsd));
    expect(avg('team-8', (r) => r.parallelism)).toBeGreaterThan(1.5);
    expect(avg('solo', (r) => r.parallelism)).toBe(1);
    expect(records.every((r) => r.firstGreenMs !== null && r.firstGreenMs <= r.wallMs)).toBe(true);
  });
});

describe('sim population', () => {
  const pop = {
    repos: 3,
    tasksPerRepo: 4,
    soloRates: [0.2, 0.9],
    repoShifts: [0, 0.2],
    effects: { 'team-8': [0.1, 0.3] },
  };

  it('knows its true difference exactly, clipping at 100%', () => {
    // Solo chances 0.2, 0.4, 0.9, 1.0 (0.9 + 0.2 clipped); with +0.1 and +0.3:
    // (0.1 + 0.3) + (0.1 + 0.3) + (0.1 + 0.1) + (0 + 0) over 8 combinations.
    expect(trueDifference(pop, 'team-8')).toBeCloseTo(1 / 8, 12);
    expect(truePassRate(pop, 'solo')).toBeCloseTo((0.2 + 0.4 + 0.9 + 1) / 4, 12);
    expect(trueDifference(pop, 'solo')).toBe(0);
  });

  it('draws suites whose mean difference converges on the truth, tasks of a repo sharing its shift', () => {
    const tasks = sampleSimTasks({ ...pop, repos: 2000, tasksPerRepo: 3 }, ARMS, 11);
    expect(tasks).toHaveLength(6000);
    const diff = tasks.reduce((s, t) => s + (t.pass['team-8'] ?? 0) - (t.pass.solo ?? 0), 0) / tasks.length;
    expect(Math.abs(diff - trueDifference(pop, 'team-8'))).toBeLessThan(0.01);
    const truth = simTruthFrom(pop, ARMS, 5);
    expect(truth.label).toBe('sim');
    expect(new Set(truth.tasks.map((t) => t.repo)).size).toBe(3);
  });
});
