/**
 * The budget's words (issue 33): a limit already passed is "exceeded", one met exactly "reached",
 * and only a limit the next call could pass "would be exceeded" — the message said "would be
 * exceeded (used 0.0022)" of a $0.002 budget.
 */
import { describe, expect, it } from 'vitest';
import { Budget, budgetHitText } from '../../src/agent/budget.js';
import type { Usage } from '../../src/model/types.js';

const usage = (tokens: number): Usage => ({
  input: tokens,
  cachedInput: undefined,
  cacheWrite: undefined,
  output: 0,
  reasoning: undefined,
});

describe('budgetHitText', () => {
  it('says "exceeded" when the spend is already past the limit', () => {
    const budget = new Budget({ usd: 0.002 });
    budget.record(usage(10), 0.0022);
    const hit = budget.wouldExceed(100, 1);
    expect(hit).toEqual({ limit: 'budget_usd', value: 0.002, used: 0.0022 });
    expect(budgetHitText(hit ?? never())).toBe('budget_usd of 0.002 exceeded (used 0.0022)');
  });

  it('says "reached" when the spend is exactly the limit', () => {
    const budget = new Budget({ tokens: 1_000 });
    budget.record(usage(1_000), null);
    expect(budgetHitText(budget.wouldExceed(1, null) ?? never())).toBe(
      'budget_tokens of 1000 reached (used 1000)',
    );
  });

  it('says "would be exceeded" only when the next call is what would pass it', () => {
    const budget = new Budget({ tokens: 1_000 });
    budget.record(usage(800), null);
    expect(budget.wouldExceed(100, null)).toBeNull();
    expect(budgetHitText(budget.wouldExceed(300, null) ?? never())).toBe(
      'budget_tokens of 1000 would be exceeded by the next call (used 800)',
    );
  });
});

function never(): never {
  throw new Error('expected a budget hit');
}
