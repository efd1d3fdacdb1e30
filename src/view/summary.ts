/**
 * The run summary, computed from the event log alone (so `show` on a finished run and the last line
 * of `run --json` agree).
 */
import type { RunStatus, StoredEvent, UsageTotals } from '../core/events.js';
import { computeMetrics, type UsageAccount } from './metrics.js';
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
  status: RunStatus;
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
  events: number;
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
  perAgent: Record<string, TokenAccount & { role: string }>;
  perRole: Record<string, TokenAccount & { agents: number }>;
}

export function emptyTokens(): UsageTotals {
  return { input: 0, cachedInput: 0, cacheWrite: 0, output: 0, reasoning: 0 };
}

export function summarise(runId: string, events: readonly StoredEvent[]): RunSummary {
  const summary: RunSummary = {
    runId,
    status: 'running',
    reason: null,
    topology: null,
    goal: null,
    model: null,
    tokens: emptyTokens(),
    costUsd: null,
    unpricedCalls: 0,
    wallClockMs: 0,
    steps: 0,
    toolCalls: 0,
    modelCalls: 0,
    agents: 0,
    resultBranch: null,
    verify: null,
    limitsHit: [],
    acceptance: null,
    sandbox: null,
    events: events.length,
    ...teamMetrics(events),
  };
  let startMs: number | null = null;
  let endMs: number | null = null;
  for (const event of events) {
    const at = Date.parse(event.ts);
    startMs ??= at;
    endMs = at;
    switch (event.kind) {
      case 'run.started': {
        const data = event.data;
        summary.topology = data.topology;
        summary.goal = data.goal;
        summary.model = data.model;
        summary.sandbox = sandboxView(data.config);
        break;
      }
      case 'agent.started':
        summary.agents += 1;
        break;
      case 'model.response': {
        const { turn } = event.data;
        summary.modelCalls += 1;
        summary.steps += 1;
        summary.tokens.input += turn.usage.input;
        summary.tokens.cachedInput += turn.usage.cachedInput ?? 0;
        summary.tokens.cacheWrite += turn.usage.cacheWrite ?? 0;
        summary.tokens.output += turn.usage.output;
        summary.tokens.reasoning += turn.usage.reasoning ?? 0;
        if (turn.costUsd === null) summary.unpricedCalls += 1;
        else summary.costUsd = (summary.costUsd ?? 0) + turn.costUsd;
        break;
      }
      case 'tool.finished':
        summary.toolCalls += 1;
        break;
      case 'verify.finished': {
        const data = event.data;
        // The run's own verify is run-level; agent-level ones (e.g. the acceptance check) are not it.
        if (event.agent !== null && summary.verify !== null) break;
        summary.verify = { command: data.command, passed: data.passed, exitCode: data.exitCode };
        break;
      }
      case 'acceptance.finished': {
        const { round, passed } = event.data;
        summary.acceptance = { round, passed };
        break;
      }
      case 'limit.hit':
        summary.limitsHit.push(event.data);
        break;
      case 'result.fetched':
        summary.resultBranch = event.data.branch;
        break;
      case 'run.finished': {
        const data = event.data;
        summary.status = data.status;
        summary.reason = data.reason;
        summary.resultBranch = data.resultBranch;
        break;
      }
      default:
        break;
    }
  }
  if (summary.costUsd !== null) summary.costUsd = Math.round(summary.costUsd * 1e6) / 1e6;
  summary.wallClockMs = startMs !== null && endMs !== null ? endMs - startMs : 0;
  return summary;
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

function teamMetrics(events: readonly StoredEvent[]): TeamFields {
  const m = computeMetrics(events);
  const perAgent: TeamFields['perAgent'] = {};
  for (const [name, a] of Object.entries(m.perAgent)) perAgent[name] = { role: a.role, ...tokenAccount(a) };
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

export function exitCodeFor(status: RunStatus): number {
  return status === 'succeeded' ? 0 : 1;
}
