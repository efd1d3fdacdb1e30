/** The run's limits and their use, from its spec (run.started config) and the limits it hit. */
import { DEFAULT_CONCURRENCY } from '../core/run-limits.js';
import { limitHitText } from './limit-text.js';
import type { RunState } from './run-state.js';
import type { AgentView } from './types.js';

export interface LimitRow {
  name: string;
  limit: number | null;
  /** null: not known (money spent by an unpriced model). */
  used: number | null;
  /** `ms` rows are durations (shown as 14s / 24h, never as counts of seconds). */
  unit: string;
  hit: boolean;
  /** What the row means when its name alone does not say (a 429's lowered concurrency). */
  note?: string;
}

/** What the run ran with: its setting, else the default (a solo run is a team of one). */
function concurrencyLimit(state: RunState): number {
  const set = num(state.config.concurrency);
  if (set !== null) return set;
  return state.topology === 'solo' ? 1 : DEFAULT_CONCURRENCY;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * `tokensUsed` counts what the budget counts (uncached + cached input, cache writes, output);
 * concurrency counts agents started and not finished (queued peers wait for a slot).
 */
export function limitRows(
  state: RunState,
  agents: readonly AgentView[],
  usage: { costUsd: number | null; tokens: number; wallClockMs: number },
): LimitRow[] {
  const c = state.config;
  const hit = new Set(state.limits.map((l) => l.limit));
  const deadline = typeof c.deadlineAt === 'string' ? Date.parse(c.deadlineAt) : Number.NaN;
  let maxAgentSteps = 0;
  let running = 0;
  for (const a of agents) {
    maxAgentSteps = Math.max(maxAgentSteps, a.steps);
    if (a.finishedMs === null && a.state !== 'queued' && a.state !== 'idle' && a.state !== 'stopped')
      running += 1;
  }
  const out: LimitRow[] = [
    {
      name: 'budget_usd',
      limit: num(c.budgetUsd),
      used: usage.costUsd,
      unit: 'USD',
      hit: hit.has('budget_usd'),
    },
    {
      name: 'budget_tokens',
      limit: num(c.budgetTokens),
      used: usage.tokens,
      unit: 'tokens',
      hit: hit.has('budget_tokens'),
    },
    {
      name: 'max_steps (per agent)',
      limit: num(c.maxSteps),
      used: maxAgentSteps,
      unit: 'steps',
      hit: hit.has('max_steps'),
    },
    { name: 'concurrency', limit: concurrencyLimit(state), used: running, unit: 'agents', hit: false },
  ];
  if (Number.isFinite(deadline) && state.firstMs !== null)
    out.push({
      name: 'deadline',
      // Whole seconds: deadlineAt is set just before the run's first event (24h, not 23h 59m).
      limit: Math.round((deadline - state.firstMs) / 1000) * 1000,
      used: usage.wallClockMs,
      unit: 'ms',
      hit: hit.has('deadline'),
    });
  for (const l of state.limits)
    if (!out.some((o) => o.name.startsWith(l.limit)))
      out.push({
        name: l.limit === 'model_concurrency' ? 'model requests at once' : l.limit,
        limit: l.value,
        used: l.used,
        unit: l.limit === 'model_concurrency' ? 'requests' : '',
        hit: true,
        note: limitHitText(l),
      });
  return out;
}
