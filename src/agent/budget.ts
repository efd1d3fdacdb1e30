/**
 * A run's budget: hard limits on money and tokens. The run stops before a call that would exceed a
 * limit; calls already in flight may overshoot (at most one per agent).
 *
 * One process's agents share one Budget. A run whose agents are spread over processes (fleet workers
 * and the owner) gives each a budget with a `SpendSource`: before each check it reads what every
 * process has logged since (the run's `model.response` events in the shared log), so the limit binds
 * the run, not each process.
 */
import type { Usage } from '../model/types.js';

/** What the whole run has spent so far, as logged by every process. */
export interface SpendSource {
  read(): Promise<{ usd: number; tokens: number }>;
}

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

  constructor(
    readonly limits: BudgetLimits,
    /** The run's spend across processes (read before each check); null: this process is the run. */
    readonly shared: SpendSource | null = null,
  ) {}

  /** Whether any limit is set (without one, nothing needs reading before a call). */
  get binds(): boolean {
    return this.limits.usd !== undefined || this.limits.tokens !== undefined;
  }

  /** Whether a check reads the run's spend from the log (the loop logs its last response first). */
  get readsLog(): boolean {
    return this.shared !== null && this.binds;
  }

  /** `wouldExceed` after reading the run's spend from every process (when shared and binding). */
  async check(inputTokens: number, inputPricePerM: number | null): Promise<BudgetHit | null> {
    if (this.shared && this.readsLog) {
      const spent = await this.shared.read();
      // The log is the truth; this process's calls not logged yet keep what record() added.
      this.usd = Math.max(this.usd, spent.usd);
      this.tokens = Math.max(this.tokens, spent.tokens);
    }
    return this.wouldExceed(inputTokens, inputPricePerM);
  }

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

/**
 * A hit in words that say what happened: the spend already past the limit is "exceeded" (the call in
 * flight overshot it), the spend exactly at it "reached", and only a limit the next call could pass
 * "would be exceeded".
 */
export function budgetHitText(hit: BudgetHit): string {
  const what =
    hit.used > hit.value
      ? 'exceeded'
      : hit.used === hit.value
        ? 'reached'
        : 'would be exceeded by the next call';
  return `${hit.limit} of ${hit.value} ${what} (used ${hit.used})`;
}

export function totalTokens(usage: Usage): number {
  return usage.input + (usage.cachedInput ?? 0) + (usage.cacheWrite ?? 0) + usage.output;
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
