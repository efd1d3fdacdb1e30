/**
 * The comparable numbers of one run, from its event log: the run summary, the view model, and the
 * swarm metrics of issue 5 (CriticalSteps, parallelism, …) when the summary carries them (null → '—').
 */
import type { StoredEvent, UsageTotals } from '../core/events.js';
import { buildRunView } from '../view/run-view.js';
import { type RunSummary, summarise } from '../view/summary.js';
import type { RunView } from '../view/types.js';

export interface SwarmMetrics {
  criticalSteps: number | null;
  totalSteps: number | null;
  parallelism: number | null;
  finishRate: number | null;
  /** Coordination turns' share of all input tokens (cached included). */
  coordinationShareOfInput: number | null;
  /** Coordination turns' share of uncached input tokens. */
  coordinationShareOfUncachedInput: number | null;
}

export interface RunFacts {
  runId: string;
  topology: string | null;
  status: string;
  model: string | null;
  agents: number;
  wallClockMs: number;
  costUsd: number | null;
  /** The summary's own token fields (`colony show --json`): `input` is uncached input. */
  tokens: UsageTotals;
  steps: number;
  toolCalls: number;
  merges: { landed: number; rejected: number };
  metrics: SwarmMetrics;
  /** The view's critical path (see src/view/critical-path.ts), always computed. */
  criticalPath: { method: string; steps: number; durationMs: number };
  verify: { command: string; passed: boolean; exitCode: number | null } | null;
}

function numberField(source: object, key: keyof SwarmMetrics): number | null {
  const value = (source as Record<string, unknown>)[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function swarmMetrics(summary: RunSummary): SwarmMetrics {
  return {
    criticalSteps: numberField(summary, 'criticalSteps'),
    totalSteps: numberField(summary, 'totalSteps'),
    parallelism: numberField(summary, 'parallelism'),
    finishRate: numberField(summary, 'finishRate'),
    coordinationShareOfInput: numberField(summary, 'coordinationShareOfInput'),
    coordinationShareOfUncachedInput: numberField(summary, 'coordinationShareOfUncachedInput'),
  };
}

export function runFacts(runId: string, events: readonly StoredEvent[]): { facts: RunFacts; view: RunView } {
  const summary = summarise(runId, events);
  const view = buildRunView(events);
  return {
    view,
    facts: {
      runId,
      topology: summary.topology,
      status: summary.status,
      model: summary.model,
      agents: view.agents.length,
      wallClockMs: summary.wallClockMs,
      costUsd: summary.costUsd,
      tokens: { ...summary.tokens },
      steps: summary.steps,
      toolCalls: summary.toolCalls,
      merges: { landed: view.totals.merges.landed, rejected: view.totals.merges.rejected },
      metrics: swarmMetrics(summary),
      criticalPath: {
        method: view.criticalPath.method,
        steps: view.criticalPath.steps,
        durationMs: view.criticalPath.durationMs,
      },
      verify: summary.verify,
    },
  };
}
