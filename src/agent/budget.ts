/**
 * A run's budget: hard limits on money and tokens. The run stops before a call that would exceed a
 * limit; calls already in flight may overshoot (at most one per agent).
 */
import type { Usage } from '../model/types.js';

export interface BudgetLimits {
  usd?: number;
  tokens?: number;
}

export interface BudgetHit {
  limit: 'budget_usd' | 'budget_tokens';
  value: number;
  used: number;
}

export class Budget {
  private usd = 0;
  private tokens = 0;

  constructor(readonly limits: BudgetLimits) {}

  record(usage: Usage, costUsd: number | null): void {
    this.tokens += totalTokens(usage);
    this.usd += costUsd ?? 0;
  }

  get usedUsd(): number {
    return this.usd;
  }

  get usedTokens(): number {
    return this.tokens;
  }

  /**
   * Would a call with about `inputTokens` of input (priced at `inputPricePerM` $/M) exceed a limit?
   * Returns the limit that would be hit, or null.
   */
  wouldExceed(inputTokens: number, inputPricePerM: number | null): BudgetHit | null {
    const { usd, tokens } = this.limits;
    if (tokens !== undefined && this.tokens + inputTokens > tokens) {
      return { limit: 'budget_tokens', value: tokens, used: this.tokens };
    }
    if (usd !== undefined) {
      const next = inputPricePerM === null ? 0 : (inputTokens * inputPricePerM) / 1_000_000;
      if (this.usd + next > usd) return { limit: 'budget_usd', value: usd, used: round6(this.usd) };
    }
    return null;
  }
}

export function totalTokens(usage: Usage): number {
  return usage.input + (usage.cachedInput ?? 0) + (usage.cacheWrite ?? 0) + usage.output;
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
