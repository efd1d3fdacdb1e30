/**
 * The run summary, computed from the event log alone (so `show` on a finished run and the last line
 * of `run --json` agree): a projection of the one fold (run-state.ts), as the dashboard's view is, so
 * both show the same agents, steps, tokens and cost.
 */
import type { ShownRunStatus, StoredEvent, UsageTotals } from '../core/events.js';
import { plannedPath } from './critical-path.js';
import { type AgentSetup, type RunMetrics, toRunMetrics, type UsageAccount } from './metrics.js';
import { foldEvents, type RunState } from './run-state.js';
import { viewAgents, viewTotals } from './run-view.js';
import { type FleetTransportView, fleetTransportView } from './fleet-transport.js';
import { type SandboxView, sandboxView } from './sandbox.js';

/** Tokens and cost of one agent or role: uncached input, cached input and output apart. */
export interface TokenAccount {
  steps: number;
  input: number;
  cachedInput: number;
  output: number;
  costUsd: number | null;
}

export interface RunSummary {
  runId: string;
  /** From the log; `interrupted` only where a reader checked the run's process (colony show). */
  status: ShownRunStatus;
  reason: string | null;
  topology: string | null;
  goal: string | null;
  model: string | null;
  tokens: UsageTotals;
  /** Sum over priced calls; null when no call was priced. */
  costUsd: number | null;
  unpricedCalls: number;
  wallClockMs: number;
  steps: number;
  toolCalls: number;
  modelCalls: number;
  agents: number;
  resultBranch: string | null;
  verify: { command: string; passed: boolean; exitCode: number | null } | null;
  limitsHit: Array<{ limit: string; value: number; used: number }>;
  /** orchestrated: the acceptance check's last round (0 = the first check), or null without --accept. */
  acceptance: { round: number; passed: boolean } | null;
  /** How agents' commands were contained (null before run.started); docs/sandbox.md. */
  sandbox: SandboxView | null;
  /** With --workers: how the owner served workers (TLS, or plain HTTP off loopback); else null. */
  fleetTransport: FleetTransportView | null;
  events: number;
  /**
   * Workflow programs: the CriticalSteps of the `w.dag` plans, logged before they ran (node weights
   * recorded by earlier runs of the program, else 1), and their critical path; null without a plan.
   */
  plannedCriticalSteps: number | null;
  plannedCriticalPath: string[];
  // Team metrics (src/view/metrics.ts; docs/orchestrated.md).
  criticalSteps: number;
  totalSteps: number;
  parallelism: number;
  agentsFinished: number;
  finishRate: number;
  /** Coordination turns' share of all input tokens, cached included (src/view/metrics.ts). */
  coordinationShareOfInput: number;
  /** Coordination turns' share of uncached input tokens. */
  coordinationShareOfUncachedInput: number;
  /** Each agent's tokens and cost, with its role, model and step cap (peers may differ: `--peer-models`). */
  perAgent: Record<string, TokenAccount & AgentSetup>;
  perRole: Record<string, TokenAccount & { agents: number }>;
}

export function summarise(runId: string, events: readonly StoredEvent[]): RunSummary {
  return toRunSummary(foldEvents(events), runId);
}

/** The summary as a projection of the view's state: its totals are the dashboard's (viewTotals). */
export function toRunSummary(state: RunState, runId: string): RunSummary {
  const totals = viewTotals(state, viewAgents(state, state.lastMs));
  const metrics = toRunMetrics(state);
  const planned = plannedPath(state);
  const { uncached, cached, cacheWrite, output } = totals.tokens;
  return {
    runId,
    status: state.status,
    reason: state.reason,
    topology: state.topology,
    goal: state.goal,
    model: state.model,
    tokens: { input: uncached, cachedInput: cached, cacheWrite, output, reasoning: state.reasoningTokens },
    costUsd: totals.costUsd,
    unpricedCalls: totals.unpricedCalls,
    wallClockMs: state.firstMs !== null && state.lastMs !== null ? state.lastMs - state.firstMs : 0,
    steps: totals.steps,
    toolCalls: totals.toolCalls,
    modelCalls: totals.modelCalls,
    agents: metrics.agentsStarted,
    resultBranch: state.resultBranch,
    verify: state.verify
      ? { command: state.verify.command, passed: state.verify.passed, exitCode: state.verify.exitCode }
      : state.agentVerify,
    limitsHit: state.limits.map(({ limit, value, used }) => ({ limit, value, used })),
    acceptance: state.acceptance,
    sandbox: sandboxView(state.config),
    fleetTransport: fleetTransportView(state.config),
    events: state.events,
    plannedCriticalSteps: planned?.criticalSteps ?? null,
    plannedCriticalPath: planned?.criticalPath ?? [],
    ...teamMetrics(metrics),
  };
}

type TeamFields = Pick<
  RunSummary,
  | 'criticalSteps'
  | 'totalSteps'
  | 'parallelism'
  | 'agentsFinished'
  | 'finishRate'
  | 'coordinationShareOfInput'
  | 'coordinationShareOfUncachedInput'
  | 'perAgent'
  | 'perRole'
>;

function teamMetrics(m: RunMetrics): TeamFields {
  const perAgent: TeamFields['perAgent'] = {};
  for (const [name, a] of Object.entries(m.perAgent))
    perAgent[name] = { role: a.role, model: a.model, maxSteps: a.maxSteps, ...tokenAccount(a) };
  const perRole: TeamFields['perRole'] = {};
  for (const [name, r] of Object.entries(m.perRole)) perRole[name] = { agents: r.agents, ...tokenAccount(r) };
  return {
    criticalSteps: m.criticalSteps,
    totalSteps: m.totalSteps,
    parallelism: round(m.parallelism, 1e3),
    agentsFinished: m.agentsFinished,
    finishRate: round(m.finishRate, 1e3),
    coordinationShareOfInput: round(m.coordinationShareOfInput, 1e3),
    coordinationShareOfUncachedInput: round(m.coordinationShareOfUncachedInput, 1e3),
    perAgent,
    perRole,
  };
}

function tokenAccount(a: UsageAccount): TokenAccount {
  return {
    steps: a.steps,
    input: a.tokens.input,
    cachedInput: a.tokens.cachedInput,
    output: a.tokens.output,
    costUsd: a.costUsd === null ? null : round(a.costUsd, 1e6),
  };
}

function round(value: number, scale: number): number {
  return Math.round(value * scale) / scale;
}

export function exitCodeFor(status: ShownRunStatus): number {
  return status === 'succeeded' ? 0 : 1;
}
