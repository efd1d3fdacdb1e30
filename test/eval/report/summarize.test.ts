import { describe, expect, it } from 'vitest';
import { summarizeEval } from '../../../src/eval/report/summarize.js';
import { wilsonInterval } from '../../../src/eval/stats/wilson.js';
import type { Arm, TrialRecord } from '../../../src/eval/trial-record.js';
import { record } from '../records.js';

const SOLO: Arm = { name: 'solo', topology: 'solo', size: 1, solo: true };
const TEAM: Arm = { name: 'team', topology: 'peers', size: 4, model: 'm' };

/** One trial per task per arm: `passes[arm]` lists the tasks (0-based) that arm passed. */
function oneTrialEach(tasks: number, passes: Record<string, number[]>, repos = 2): TrialRecord[] {
  return Object.entries(passes).flatMap(([arm, passed]) =>
    Array.from({ length: tasks }, (_, i) =>
      record({
        arm,
        task: `t${String(i).padStart(2, '0')}`,
        repo: `r${i % repos}`,
        outcome: passed.includes(i) ? 'pass' : 'fail',
        score: passed.includes(i) ? 1 : 0.5,
        firstGreenMs: passed.includes(i) ? 1000 * (i + 1) : null,
        wallMs: 10_000 * (i + 1),
        costUsd: arm === 'solo' ? 1 : 3,
      }),
    ),
  );
}

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

/** Every number in a JSON-like value, with its path. */
function numbers(value: unknown, path = ''): [string, number][] {
  if (typeof value === 'number') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => numbers(v, `${path}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => numbers(v, `${path}.${k}`));
  return [];
}

describe('summarizeEval', () => {
  const records = oneTrialEach(10, { solo: range(4), team: range(9) });
  const s = summarizeEval(records, [SOLO, TEAM]);

  it('per arm: pass rate over tasks, its interval, cost, wall-clock, configuration', () => {
    const [solo, team] = s.arms;
    expect(solo?.passRate).toBeCloseTo(0.4, 12);
    expect(team?.passRate).toBeCloseTo(0.9, 12);
    // 10 tasks (< 30): each bound the wider of Wilson's and the bootstrap's.
    const w = wilsonInterval(4, 10);
    expect(solo?.wilson).toEqual(w);
    expect(solo?.interval?.method).toBe('wilson-envelope');
    expect(solo?.interval?.lo).toBeLessThanOrEqual(w.lo);
    expect(solo?.interval?.hi).toBeGreaterThanOrEqual(w.hi);
    expect(team?.costPerSuccessUsd).toBeCloseTo(30 / 9, 12);
    expect(team?.medianWallMs).toBe(55_000);
    expect(solo?.medianFirstGreenMs).toBe(2500);
    expect(team?.config).toEqual({ model: 'm' });
    expect(team?.passAtK.map((r) => r.k)).toEqual([1]);
    expect(solo?.solved.at(-1)).toEqual({ ms: 4000, share: 0.4 });
  });

  it('against solo: one trial per task → exact McNemar on the discordant tasks, MDE and verdict', () => {
    const c = s.comparisons[0];
    expect(c).toMatchObject({ arm: 'team', baseline: 'solo', pairedTasks: 10, test: 'mcnemar-exact' });
    expect(c?.diff).toBeCloseTo(0.5, 12);
    expect(c?.discordant).toEqual({ armOnly: 5, soloOnly: 0 });
    // 5 of 5 discordant tasks favour the team: 2 · (1/2)^5.
    expect(c?.p).toBeCloseTo(0.0625, 12);
    expect(c?.pHolm).toBeCloseTo(0.0625, 12);
    expect(c?.significant).toBe(false);
    // d = five 1s and five 0s: SD = √(10 · 0.25 / 9); MDE = (1.95996 + 0.84162) · SD / √10.
    const mde = ((1.959963985 + 0.8416212336) * Math.sqrt(2.5 / 9)) / Math.sqrt(10);
    expect(c?.mde).toBeCloseTo(mde, 8);
    expect(c?.costRatio).toBeCloseTo(3, 12);
    expect(c?.verdict).toContain('team: no significant difference from solo at this sample size');
    expect(c?.verdict).toContain(
      `the smallest difference this sample could detect is ±${(mde * 100).toFixed(1)} pp`,
    );
    expect(c?.ci?.method).toBe('t-envelope');
  });

  it('says a clear improvement is significant, Holm-adjusted across arms', () => {
    const data = oneTrialEach(40, { solo: range(10), team: range(36), same: range(10) }, 8);
    const summary = summarizeEval(data, [SOLO, TEAM, { name: 'same', topology: 'peers', size: 2 }]);
    const [team, same] = summary.comparisons;
    expect(team?.significant).toBe(true);
    expect(team?.pHolm).toBeCloseTo(Math.min(1, 2 * (team?.p ?? 1)), 12);
    expect(team?.ci?.method).toBe('cluster-bootstrap');
    expect(team?.ci?.lo).toBeGreaterThan(0);
    expect(team?.verdict).toMatch(
      /^team passed 65\.0 pp more tasks than solo on 40 paired tasks .* a significant improvement/,
    );
    expect(same?.p).toBe(1);
    expect(same?.significant).toBe(false);
    expect(summary.matrix.rows[0]?.cells.filter((c) => c.result === 'win')).toHaveLength(26);
    expect(summary.matrix.rows[1]?.cells.every((c) => c.result === 'tie')).toBe(true);
    expect(summary.pareto).toEqual(['solo', 'team']);
    expect(summary.headline.at(-1)).toMatch(/same is dominated|other 1 arm is dominated/);
  });

  it('several trials per task → the sign-flip test on per-task shares', () => {
    const data: TrialRecord[] = [];
    for (let t = 0; t < 6; t++)
      for (let k = 0; k < 3; k++) {
        data.push(record({ arm: 'solo', task: `t${t}`, trial: k, outcome: k === 0 ? 'pass' : 'fail' }));
        data.push(record({ arm: 'team', task: `t${t}`, trial: k, outcome: k < 2 ? 'pass' : 'fail' }));
      }
    const c = summarizeEval(data, [SOLO, TEAM]).comparisons[0];
    expect(c?.test).toBe('sign-flip-exact');
    expect(c?.diff).toBeCloseTo(1 / 3, 12);
    // All six tasks +1/3: only the all-plus and all-minus assignments reach it: 2/64.
    expect(c?.p).toBeCloseTo(2 / 64, 12);
    const team = summarizeEval(data, [SOLO, TEAM]).arms[1];
    expect(team?.passAtK.map((r) => [r.k, r.passAtK, r.passHatK])).toEqual([
      [1, expect.closeTo(2 / 3, 12), expect.closeTo(2 / 3, 12)],
      [2, expect.closeTo(1, 12), expect.closeTo(1 / 3, 12)],
      [3, expect.closeTo(1, 12), expect.closeTo(0, 12)],
    ]);
  });

  it('leaves infra errors out of the rates but counts their cost; warns about unknown arms', () => {
    const data = [
      ...oneTrialEach(4, { solo: [0, 1], team: [0, 1, 2] }),
      record({ arm: 'team', task: 't00', trial: 1, outcome: 'infra_error', costUsd: 7 }),
      record({ arm: 'ghost', task: 't00' }),
    ];
    const summary = summarizeEval(data, [SOLO, TEAM]);
    const team = summary.arms[1];
    expect(team?.trials).toBe(4);
    expect(team?.infraErrors).toBe(1);
    expect(team?.passRate).toBeCloseTo(0.75, 12);
    expect(team?.totalCostUsd).toBeCloseTo(4 * 3 + 7, 12);
    expect(team?.meanCostUsd).toBeCloseTo(3, 12);
    expect(summary.warnings.join('\n')).toMatch(/arm "ghost", which arms.json does not describe/);
    expect(summary.warnings.join('\n')).toMatch(/"team": 1 infra error/);
  });

  it('finds the baseline: the solo mark, else the only arm of size 1, else none (said plainly)', () => {
    const data = oneTrialEach(4, { solo: [0], team: [0, 1] });
    const unmarked = summarizeEval(data, [{ ...SOLO, solo: undefined }, TEAM]);
    expect(unmarked.baseline).toBe('solo');
    expect(unmarked.warnings[0]).toMatch(/only arm of size 1/);
    const none = summarizeEval(data, [
      { ...SOLO, size: 2, solo: undefined },
      { ...TEAM, name: 'team' },
    ]);
    expect(none.baseline).toBeNull();
    expect(none.comparisons).toEqual([]);
    expect(none.warnings.join()).toMatch(/no arm is compared with a baseline/);
  });

  it('is plain JSON (no NaN or Infinity) even with an arm without trials, and deterministic per seed', () => {
    const data = oneTrialEach(40, { solo: range(12), team: range(20) }, 8);
    const arms = [SOLO, TEAM, { name: 'empty', topology: 'peers', size: 8 }];
    const summary = summarizeEval(data, arms);
    expect(numbers(summary).filter(([, v]) => !Number.isFinite(v))).toEqual([]);
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
    expect(summarizeEval(data, arms)).toEqual(summary);
    const reseeded = summarizeEval(data, arms, { seed: 99 });
    expect(reseeded.arms[0]?.bootstrap).not.toEqual(summary.arms[0]?.bootstrap);
    expect(summary.warnings.join()).toMatch(/"empty" has no graded trial/);
    expect(summary.comparisons[1]?.verdict).toMatch(/no task was graded in both/);
  });
});
