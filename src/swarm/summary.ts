/**
 * The run summary, computed from the event log alone (so `show` on a finished run and the last line
 * of `run --json` agree).
 */
import type { RunStatus, StoredEvent, UsageTotals } from '../core/events.js';

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
  events: number;
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
    events: events.length,
  };
  let startMs: number | null = null;
  let endMs: number | null = null;
  for (const event of events) {
    const at = Date.parse(event.ts);
    startMs ??= at;
    endMs = at;
    switch (event.kind) {
      case 'run.started': {
        const data = (event as StoredEvent<'run.started'>).data;
        summary.topology = data.topology;
        summary.goal = data.goal;
        summary.model = data.model;
        break;
      }
      case 'agent.started':
        summary.agents += 1;
        break;
      case 'model.response': {
        const { turn } = (event as StoredEvent<'model.response'>).data;
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
        const data = (event as StoredEvent<'verify.finished'>).data;
        summary.verify = { command: data.command, passed: data.passed, exitCode: data.exitCode };
        break;
      }
      case 'limit.hit':
        summary.limitsHit.push((event as StoredEvent<'limit.hit'>).data);
        break;
      case 'result.fetched':
        summary.resultBranch = (event as StoredEvent<'result.fetched'>).data.branch;
        break;
      case 'run.finished': {
        const data = (event as StoredEvent<'run.finished'>).data;
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

export function exitCodeFor(status: RunStatus): number {
  return status === 'succeeded' ? 0 : 1;
}
