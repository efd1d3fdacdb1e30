/** The per-run limits the scheduler enforces (REFERENCE §3: 64 threads, 1,000 starts per agent). */
import { DEFAULT_CONCURRENCY } from '../../core/run-limits.js';

export interface SchedulerLimits {
  /** Most agents working at once in one run (default 64). */
  concurrency: number;
  /** Most starts of one named agent per run (default 1,000); the next one is a thread_limit_error. */
  maxStartsPerAgent: number;
  /** Most distinct agents per run (default 4,096); the next new one is an agent_limit_error. */
  maxAgents: number;
}

export const DEFAULT_LIMITS: SchedulerLimits = {
  concurrency: DEFAULT_CONCURRENCY,
  maxStartsPerAgent: 1000,
  maxAgents: 4096,
};

/** Limit names as they appear in `limit.hit` events. */
export const LIMIT_NAMES = {
  concurrency: 'concurrency',
  maxStartsPerAgent: 'max_starts_per_agent',
  maxAgents: 'max_agents',
} as const;

/** Fills in defaults; non-positive or non-integer values fall back to the default (at least 1). */
export function resolveLimits(partial: Partial<SchedulerLimits> = {}): SchedulerLimits {
  const pick = (value: number | undefined, fallback: number) =>
    value !== undefined && Number.isInteger(value) && value >= 1 ? value : fallback;
  return {
    concurrency: pick(partial.concurrency, DEFAULT_LIMITS.concurrency),
    maxStartsPerAgent: pick(partial.maxStartsPerAgent, DEFAULT_LIMITS.maxStartsPerAgent),
    maxAgents: pick(partial.maxAgents, DEFAULT_LIMITS.maxAgents),
  };
}
