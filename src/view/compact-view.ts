/**
 * `toCompactView(state, nowMs)`: the dashboard API's snapshot of the one fold (run-state.ts). Agents,
 * states, totals and the critical path come from the same helpers as `toRunView`, so the dashboard and
 * `colony report` agree; only the packaging differs (ISO times, aggregated timeline, capped feeds).
 */
import {
  type AgentRow,
  type ClaimItem,
  type CompactRunView,
  type ContextItem,
  type MergeItem,
  type MessageItem,
  SEG_ERROR,
  SEG_MODEL,
  SEG_TOOL,
  SEG_WAIT,
  type SeriesPoint,
} from './compact-types.js';
import { criticalPath } from './critical-path.js';
import { limitRows } from './limits.js';
import type { RunState } from './run-state.js';
import { byName, countByState, viewAgents, viewEndMs, viewLanes, viewTotals } from './run-view.js';
import { sandboxView } from './sandbox.js';
import { firstBarMs } from './timeline.js';
import type {
  AgentState,
  AgentView,
  ContextEntryView,
  HeldClaim,
  MergeView,
  MessageView,
  TimelineBar,
} from './types.js';

export const MAX_FEED = 1000;
const TIMELINE_PX = 2000;
const SERIES_POINTS = 240;

const STATE_ORDER: Record<AgentState, number> = {
  failed: 0,
  waiting: 1,
  tool: 2,
  thinking: 3,
  idle: 4,
  queued: 5,
  stopped: 6,
  done: 7,
};

const iso = (ms: number): string => new Date(ms).toISOString();

export function agentRow(a: AgentView): AgentRow {
  return {
    name: a.name,
    profile: a.profile ?? '',
    model: a.model ?? null,
    state: a.state,
    since: iso(a.stateSinceMs),
    steps: a.steps,
    toolCalls: a.toolCalls,
    costUsd: a.costUsd === null ? null : Math.round(a.costUsd * 1e6) / 1e6,
    tokens: {
      input: a.tokens.uncached,
      cachedInput: a.tokens.cached,
      cacheWrite: a.tokens.cacheWrite,
      output: a.tokens.output,
      reasoning: 0,
    },
    claim: a.claim?.scope ?? null,
    lastAction: a.lastAction ?? '',
    lastTs: iso(a.lastActionMs ?? a.stateSinceMs),
    branch: a.branch,
    commits: a.commits.length,
    finishStatus: a.finishStatus,
    worker: a.worker,
  };
}

export function contextItem(c: ContextEntryView): ContextItem {
  return {
    seq: c.seq,
    id: c.id,
    ts: iso(c.tMs),
    author: c.agent,
    kind: c.kind,
    summary: c.summary,
    scope: c.scope,
  };
}

export function messageItem(m: MessageView): MessageItem {
  return {
    seq: m.seq,
    id: m.id,
    ts: iso(m.tMs),
    // The log's sender is null for messages from outside the run (coord's USER_SENDER).
    from: m.from ?? 'user',
    to: m.to,
    channel: m.channel,
    text: m.text,
    delivered: m.deliveredMs !== null,
  };
}

export function mergeItem(m: MergeView): MergeItem {
  return {
    mr: m.mr,
    agent: m.agent,
    branch: m.branch,
    note: m.note,
    status: m.status,
    reason: m.reason,
    files: m.files,
    output: m.output,
    requestedAt: iso(m.requestedMs),
    decidedAt: m.decidedMs === null ? null : iso(m.decidedMs),
  };
}

export function claimItem(c: HeldClaim): ClaimItem {
  return { claimId: c.claimId, agent: c.agent, scope: c.scope, summary: c.summary, since: iso(c.sinceMs) };
}

function segKind(bar: TimelineBar): number {
  if (bar.wait) return SEG_WAIT;
  if (bar.error) return SEG_ERROR;
  return bar.kind === 'model' ? SEG_MODEL : SEG_TOOL;
}

/**
 * Merges bars closer than `resolution` ms (the longer one's kind wins), flattened relative to
 * `origin` as [offset, duration, kind, …]: a 100-bar lane on a 2,000 px chart stays ≤ 2,000 triples.
 */
export function aggregateBars(bars: readonly TimelineBar[], origin: number, resolution: number): number[] {
  const out: number[] = [];
  let cur: [number, number, number] | null = null;
  let curKindMs = 0;
  for (const bar of bars) {
    const s = bar.startMs;
    const e = bar.endMs;
    if (cur && s - cur[1] <= resolution && e - cur[0] <= resolution * 4) {
      if (e - s > curKindMs) {
        cur[2] = segKind(bar);
        curKindMs = e - s;
      }
      cur[1] = Math.max(cur[1], e);
      continue;
    }
    if (cur) out.push(cur[0] - origin, Math.max(1, cur[1] - cur[0]), cur[2]);
    cur = [s, e, segKind(bar)];
    curKindMs = e - s;
  }
  if (cur) out.push(cur[0] - origin, Math.max(1, cur[1] - cur[0]), cur[2]);
  return out;
}

/** Cumulative usage at ≤ SERIES_POINTS model calls (the last call always included). */
function series(state: RunState): SeriesPoint[] {
  const u = state.usage;
  const step = Math.max(1, Math.ceil(u.length / SERIES_POINTS));
  const out: SeriesPoint[] = [];
  // Cost stays null until a call is priced: an unpriced model's series never says $0.
  const cum: Omit<SeriesPoint, 't'> = { uncached: 0, cached: 0, cacheWrite: 0, output: 0, costUsd: null };
  for (let i = 0; i < u.length; i += 1) {
    const p = u[i];
    if (!p) continue;
    cum.uncached += p.uncached;
    cum.cached += p.cached;
    cum.cacheWrite += p.cacheWrite;
    cum.output += p.output;
    if (p.costUsd !== null) cum.costUsd = (cum.costUsd ?? 0) + p.costUsd;
    if ((i + 1) % step === 0 || i === u.length - 1) out.push({ t: p.tMs, ...cum });
  }
  return out;
}

export function toCompactView(state: RunState, nowMs: number): CompactRunView {
  const endMs = viewEndMs(state, nowMs) ?? nowMs;
  const start = state.firstMs ?? nowMs;
  const agents = viewAgents(state, endMs);
  const lanes = viewLanes(state, agents, endMs);
  const totals = viewTotals(state, agents);
  const wallClockMs = state.firstMs === null ? 0 : endMs - start;
  const timelineStart = Math.min(firstBarMs(lanes) ?? start, endMs);
  const resolution = Math.max(1, (endMs - timelineStart) / TIMELINE_PX);
  const laneOf = new Map(lanes.map((l) => [l.agent, l]));
  const t = totals.tokens;
  const rows = agents.map(agentRow);
  rows.sort((x, y) => STATE_ORDER[x.state] - STATE_ORDER[y.state] || byName(x, y));
  return {
    runId: state.runId,
    status: state.status,
    reason: state.reason,
    topology: state.topology,
    goal: state.goal,
    model: state.model,
    resultBranch: state.resultBranch,
    lastSeq: state.lastSeq,
    events: state.events,
    startedAt: state.firstMs === null ? null : iso(state.firstMs),
    wallClockMs,
    tokens: {
      input: t.uncached,
      cachedInput: t.cached,
      cacheWrite: t.cacheWrite,
      output: t.output,
      reasoning: state.reasoningTokens,
    },
    costUsd: totals.costUsd,
    modelCalls: totals.modelCalls,
    toolCalls: totals.toolCalls,
    verify: state.verify,
    counts: countByState(agents),
    agents: rows,
    timeline: {
      startMs: timelineStart,
      runStartMs: start,
      endMs,
      rows: agents.map((a) => ({
        agent: a.name,
        segs: aggregateBars(laneOf.get(a.name)?.bars ?? [], timelineStart, resolution),
      })),
      critical: criticalPath(agents, lanes, [...state.tasks.values()], endMs),
    },
    series: series(state),
    context: state.context.slice(-MAX_FEED).map(contextItem),
    contextTotal: state.context.length,
    messages: [...state.messages.values()].slice(-MAX_FEED).map(messageItem),
    merges: [...state.merges.values()].reverse().map(mergeItem),
    claims: [...state.claims.values()].map(claimItem),
    limits: limitRows(state, agents, {
      costUsd: totals.costUsd,
      tokens: t.uncached + t.cached + t.cacheWrite + t.output,
      wallClockMs,
    }),
    limitsHit: state.limits.map((l) => ({
      limit: l.limit,
      value: l.value,
      used: l.used,
      agent: l.agent,
      ts: iso(l.tMs),
    })),
    sandbox: sandboxView(state.config),
  };
}
