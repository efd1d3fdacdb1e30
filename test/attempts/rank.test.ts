/** The ranking of attempts (verify, then judge, then cost) and the judge's output read as a score. */
import { describe, expect, it } from 'vitest';
import { type AttemptOutcome, parseAttemptFlag, rankAttempts, scoreOf } from '../../src/attempts/index.js';

const attempt = (index: number, over: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  index,
  runId: `r-${index}`,
  status: 'succeeded',
  reason: null,
  verify: true,
  judge: null,
  costUsd: 1,
  tokens: 100,
  criticalSteps: 2,
  branch: `colony/r-${index}`,
  commit: 'c'.repeat(40),
  ...over,
});
const order = (attempts: AttemptOutcome[]) => rankAttempts(attempts).ranked.map((a) => a.index);
const judged = (score: number | null) => ({ score, reason: score === null ? 'no number' : null });

describe('rankAttempts', () => {
  it('puts verify passed before not run before failed, and a result before none', () => {
    expect(
      order([
        attempt(1, { verify: false }),
        attempt(2, { verify: null }),
        attempt(3, { branch: null, commit: null }),
        attempt(4),
      ]),
    ).toEqual([4, 2, 1, 3]);
  });

  it('then a run that succeeded before one that did not (same verify)', () => {
    expect(order([attempt(1, { status: 'budget_exhausted', costUsd: 0.1 }), attempt(2)])).toEqual([2, 1]);
  });

  it('then a higher judge score, a number before none; then lower cost, a known cost first; then the number', () => {
    expect(
      order([
        attempt(1, { judge: judged(null) }),
        attempt(2, { judge: judged(3) }),
        attempt(3, { judge: judged(9) }),
      ]),
    ).toEqual([3, 2, 1]);
    expect(
      order([
        attempt(1, { costUsd: null }),
        attempt(2, { costUsd: 0.5 }),
        attempt(3, { costUsd: 0.2 }),
        attempt(4, { costUsd: 0.2 }),
      ]),
    ).toEqual([3, 4, 2, 1]);
  });

  it('has no winner when no attempt landed anything', () => {
    const result = rankAttempts([
      attempt(1, { branch: null, commit: null }),
      attempt(2, { branch: null, commit: null }),
    ]);
    expect(result.winner).toBeNull();
    expect(result.ranked).toHaveLength(2);
  });
});

describe('scoreOf', () => {
  it('reads the last non-empty line as a number', () => {
    expect(scoreOf('building…\n42\n\n')).toEqual({ score: 42, reason: null });
    expect(scoreOf('-1.5e2')).toEqual({ score: -150, reason: null });
  });
  it('scores none, with the reason, for no number', () => {
    expect(scoreOf('')).toEqual({ score: null, reason: 'the judge printed nothing' });
    expect(scoreOf('42\ngood').score).toBeNull();
    expect(scoreOf('Infinity').score).toBeNull();
    expect(scoreOf('0x10').score).toBeNull();
  });
});

describe('parseAttemptFlag', () => {
  it('takes GROUP:K/N with 1 ≤ K ≤ N ≤ 16 only', () => {
    expect(parseAttemptFlag('a-abc-123456:2/3')).toEqual({ group: 'a-abc-123456', index: 2, of: 3 });
    for (const bad of ['a-abc-123456:4/3', 'a-abc-123456:0/3', 'a-abc-123456:1/17', 'r-abc-123456:1/2', 'x'])
      expect(parseAttemptFlag(bad)).toBeNull();
  });
});
