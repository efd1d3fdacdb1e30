/**
 * The report's intervals beyond the pass rate (pass@k, mean score, cost per success), arm-vs-arm
 * comparisons (Holm over the ones asked for), the per-tag breakdown and the matched budget.
 */
import { describe, expect, it } from 'vitest';
import { summarizeEval } from '../../../src/eval/report/summarize.js';
import type { Arm, TrialRecord } from '../../../src/eval/trial-record.js';
import { record } from '../records.js';

const ARMS: Arm[] = [
  { name: 'solo', topology: 'solo', size: 1, solo: true },
  { name: 'a', topology: 'peers', size: 2 },
  { name: 'b', topology: 'peers', size: 4, budgetUsd: 1 },
];

/** 12 tasks in 4 repositories, 3 trials each; arm's chance of a pass per task is `rates[arm]`. */
function records(): TrialRecord[] {
  const rates: Record<string, number> = { solo: 1, a: 2, b: 3 };
  const out: TrialRecord[] = [];
  for (const arm of Object.keys(rates))
    for (let i = 0; i < 12; i++)
      for (let trial = 0; trial < 3; trial++) {
        const pass = (i + trial) % 3 < (rates[arm] ?? 0) && !(arm === 'solo' && i % 4 === 0);
        out.push(
          record({
            arm,
            task: `t${i}`,
            repo: `r${i % 4}`,
            trial,
            outcome: pass ? 'pass' : 'fail',
            score: pass ? 1 : 0.25 * (i % 4),
            costUsd: arm === 'solo' ? 0.5 : arm === 'a' ? 1 : 2,
          }),
        );
      }
  return out;
}

describe('summarizeEval: more intervals', () => {
  const s = summarizeEval(
    records(),
    ARMS,
    {
      resamples: 400,
      compare: [
        ['b', 'a'],
        ['a', 'b'],
      ],
    },
    [],
    {
      budget: { usd: 2 },
      tags: {
        ...Object.fromEntries(
          Array.from({ length: 12 }, (_, i) => [`t${i}`, i < 4 ? ['single'] : ['coupled']]),
        ),
        t0: ['single', 'flaky'],
      },
    },
  );
  const arm = (name: string) => s.arms.find((x) => x.name === name);

  it('gives pass@k, pass^k, the mean score and cost per success an interval around the estimate', () => {
    const a = arm('a');
    if (!a) throw new Error('no arm a');
    expect(a.passAtK.map((r) => r.k)).toEqual([1, 2, 3]);
    for (const r of a.passAtK) {
      for (const [v, ci] of [
        [r.passAtK, r.passAtKCi],
        [r.passHatK, r.passHatKCi],
      ] as const) {
        if (!ci) throw new Error('no interval');
        expect(ci.lo).toBeLessThanOrEqual(v + 1e-12);
        expect(ci.hi).toBeGreaterThanOrEqual(v - 1e-12);
      }
    }
    expect(a.scoreCi?.lo ?? 2).toBeLessThanOrEqual(a.meanScore ?? -1);
    expect(a.scoreCi?.hi ?? -1).toBeGreaterThanOrEqual(a.meanScore ?? 2);
    const cps = a.costPerSuccessCi;
    expect(cps?.lo ?? Number.NaN).toBeLessThanOrEqual(a.costPerSuccessUsd ?? 0);
    expect(cps?.hi ?? Number.NaN).toBeGreaterThanOrEqual(a.costPerSuccessUsd ?? 0);
    // Every trial of b passes: pass@3 is 1 with no spread; cost per success is exact.
    expect(arm('b')?.passAtK.at(-1)?.passAtKCi).toEqual({ lo: 1, hi: 1 });
    expect(arm('b')?.costPerSuccessCi).toEqual({ lo: 2, hi: 2 });
  });

  it('compares the arms asked for, paired by task, Holm-adjusted across those comparisons', () => {
    expect(s.pairwise.map((c) => [c.arm, c.baseline])).toEqual([
      ['b', 'a'],
      ['a', 'b'],
    ]);
    const [ba, ab] = s.pairwise;
    expect(ba?.diff).toBeCloseTo(-(ab?.diff ?? 0), 12);
    expect(ba?.pairedTasks).toBe(12);
    // Two comparisons with the same p: Holm multiplies the smaller by 2 and keeps them monotone.
    expect(ba?.pHolm).toBeCloseTo(Math.min(1, 2 * (ba?.p ?? 0)), 12);
    expect(s.headline.some((l) => /^b[: ].* a /.test(l))).toBe(true);
    // The comparisons with solo keep their own family.
    expect(s.comparisons.map((c) => c.arm)).toEqual(['a', 'b']);
  });

  it('breaks the pass rate down per tag, with intervals', () => {
    expect(s.byTag.map((t) => [t.tag, t.tasks])).toEqual([
      ['coupled', 8],
      ['flaky', 1],
      ['single', 4],
    ]);
    const single = s.byTag.find((t) => t.tag === 'single')?.arms.find((a) => a.arm === 'solo');
    expect(single?.tasks).toBe(4);
    expect(single?.interval?.method).toBe('wilson-envelope');
    expect(s.byTag.find((t) => t.tag === 'flaky')?.arms.find((a) => a.arm === 'solo')?.passRate).toBe(0);
  });

  it('records the matched budget and names the arm that ran under a lower one', () => {
    expect(s.budget).toEqual({ usd: 2 });
    expect(arm('a')?.budget).toEqual({ usd: 2 });
    expect(arm('b')?.budget).toEqual({ usd: 1 });
    expect(s.warnings.filter((w) => /lower budget/.test(w))).toEqual([
      expect.stringMatching(/^arm "b" ran under a lower budget/),
    ]);
  });
});
