/**
 * A limit hit in words, as the CLI, the summary, the report and the dashboard show it (issue 33): a
 * budget already passed says so, instead of "the next call could pass".
 */
import { describe, expect, it } from 'vitest';
import { limitHitText } from '../../src/view/limit-text.js';

describe('limitHitText for budgets', () => {
  it('a money budget the spend already passed is exceeded', () => {
    const text = limitHitText({ limit: 'budget_usd', value: 0.002, used: 0.0022 });
    expect(text).toBe('money budget exceeded: $0.0022 spent of $0.002');
  });

  it('a budget the next call could pass says so', () => {
    expect(limitHitText({ limit: 'budget_usd', value: 0.5, used: 0.42 })).toBe(
      'money budget reached: the next call could pass $0.5 ($0.42 spent)',
    );
    expect(limitHitText({ limit: 'budget_tokens', value: 1000, used: 800 })).toBe(
      'token budget reached: the next call could pass 1000 tokens (800 used)',
    );
  });

  it('a token budget met or passed says how many were used', () => {
    expect(limitHitText({ limit: 'budget_tokens', value: 300, used: 500 })).toBe(
      'token budget exceeded: 500 tokens used of 300',
    );
    expect(limitHitText({ limit: 'budget_tokens', value: 1000, used: 1000 })).toBe(
      'token budget used up: 1000 tokens of 1000',
    );
  });
});

describe('limitHitText for the lead', () => {
  it('names the open workflow runs of the lead', () => {
    expect(limitHitText({ limit: 'max_open_workflows', value: 10, used: 10 })).toBe(
      'workflow runs of the lead: 10 open, at most 10 (one more was refused)',
    );
  });
});
