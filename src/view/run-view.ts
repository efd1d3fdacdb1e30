/** Folding a run's events into its view model (see types.ts). */
import type { StoredEvent } from '../core/events.js';
import { criticalPath } from './critical-path.js';
import { foldEvents, newAgent, type RunState, WAITING_TOOLS } from './run-state.js';
import {
  AGENT_STATES,
  type AgentState,
  type AgentView,
  FINAL_STATES,
  type RunTotals,
  type RunView,
  type TimelineLane,
} from './types.js';

/** The view of a run from its events (in log order). `nowMs` closes still-open bars of a live run. */
export function buildRunView(events: readonly StoredEvent[], nowMs?: number): RunView {
  return toRunView(foldEvents(events), nowMs);
}

/** The view's end: the last event's time, or `nowMs` while the run is running. */
export function viewEndMs(state: RunState, nowMs?: number): number | null {
  const running = state.status === 'running';
  return running && nowMs !== undefined ? Math.max(nowMs, state.lastMs ?? nowMs) : state.lastMs;
}

/**
 * The run's agents as shown (copies, sorted by name): peers configured but not started yet are
 * `queued`; once the run is over, an agent that never logged agent.finished is `stopped` (the run was
 * stopped) or `idle` (it ended otherwise, e.g. its process died).
 */
export function viewAgents(state: RunState, endMs: number | null): AgentView[] {
  const now = endMs ?? 0;
  const over = state.status !== 'running';
  // Senders that never started (e.g. the integration queue posting a message) are not agents.
  const planned = new Set(state.plannedAgents);
  const agents: AgentView[] = [];
  for (const a of state.agents.values()) {
    if (a.startedMs === null && a.steps === 0 && !planned.has(a.name)) continue;
    const copy = {
      ...a,
      tokens: { ...a.tokens },
      claim: a.claim ? { ...a.claim } : null,
      commits: [...a.commits],
    };
    if (over && !FINAL_STATES.has(a.state) && a.state !== 'queued') {
      copy.state = state.status === 'stopped' ? 'stopped' : 'idle';
      copy.stateSinceMs = state.lastMs ?? a.stateSinceMs;
    }
    agents.push(copy);
  }
  for (const name of state.plannedAgents)
    if (!state.agents.has(name)) agents.push(newAgent(name, state.firstMs ?? now));
  return agents.sort(byName);
}

/** Timeline lanes of `agents` (same order); while running, calls in flight are `open` bars up to `endMs`. */
export function viewLanes(
  state: RunState,
  agents: readonly AgentView[],
  endMs: number | null,
): TimelineLane[] {
  const now = endMs ?? 0;
  const lanes: TimelineLane[] = [];
  for (const agent of agents) {
    const bars = state.bars.get(agent.name);
    const open = state.openTools.get(agent.name);
    if (!bars && !open) continue;
    const lane: TimelineLane = { agent: agent.name, bars: bars ? [...bars] : [] };
    lanes.push(lane);
    if (state.status !== 'running') continue;
    for (const tool of open?.values() ?? [])
      lane.bars.push({
        kind: 'tool',
        startMs: tool.startMs,
        endMs: now,
        label: tool.name,
        step: tool.step,
        error: false,
        open: true,
        wait: WAITING_TOOLS.has(tool.name),
      });
    if (agent.state === 'thinking')
      lane.bars.push({
        kind: 'model',
        startMs: agent.stateSinceMs,
        endMs: now,
        label: 'model call',
        step: agent.steps + 1,
        error: false,
        open: true,
        wait: false,
      });
  }
  return lanes;
}

/** Snapshot of an accumulator (a live run: apply new events, then call this a few times a second). */
export function toRunView(state: RunState, nowMs?: number): RunView {
  const endMs = viewEndMs(state, nowMs);
  const now = endMs ?? 0;
  const agents = viewAgents(state, endMs);
  const lanes = viewLanes(state, agents, endMs);
  const merges = [...state.merges.values()].sort((a, b) => a.mr - b.mr);
  return {
    runId: state.runId,
    topology: state.topology,
    goal: state.goal,
    model: state.model,
    status: state.status,
    reason: state.reason,
    resultBranch: state.resultBranch,
    startMs: state.firstMs,
    endMs,
    wallClockMs: state.firstMs !== null && endMs !== null ? endMs - state.firstMs : 0,
    agents,
    byState: countByState(agents),
    totals: viewTotals(state, agents),
    lanes,
    criticalPath: criticalPath(agents, lanes, [...state.tasks.values()], now),
    usage: [...state.usage],
    merges: merges.map((m) => ({ ...m })),
    context: [...state.context],
    messages: [...state.messages.values()].sort((a, b) => a.seq - b.seq),
    limits: [...state.limits],
    claims: [...state.claims.values()],
    verify: state.verify,
    events: state.events,
    lastSeq: state.lastSeq,
  };
}

export function countByState(agents: readonly AgentView[]): Record<AgentState, number> {
  const byState = Object.fromEntries(AGENT_STATES.map((s) => [s, 0])) as Record<AgentState, number>;
  for (const a of agents) byState[a.state] += 1;
  return byState;
}

/** Run totals: tokens and tool calls summed over `agents`, cost over every priced call, merges. */
export function viewTotals(state: RunState, agents: readonly AgentView[]): RunTotals {
  const tokens = { uncached: 0, cached: 0, cacheWrite: 0, output: 0 };
  let toolCalls = 0;
  for (const a of agents) {
    tokens.uncached += a.tokens.uncached;
    tokens.cached += a.tokens.cached;
    tokens.cacheWrite += a.tokens.cacheWrite;
    tokens.output += a.tokens.output;
    toolCalls += a.toolCalls;
  }
  let priced = 0;
  let cost = 0;
  for (const u of state.usage)
    if (u.costUsd !== null) {
      priced += 1;
      cost += u.costUsd;
    }
  const merges = { requested: state.merges.size, landed: 0, rejected: 0, pending: 0 };
  for (const m of state.merges.values()) {
    if (m.status === 'landed') merges.landed += 1;
    else if (m.status === 'rejected') merges.rejected += 1;
    if (m.decidedMs === null) merges.pending += 1;
  }
  return {
    steps: state.usage.length,
    modelCalls: state.usage.length,
    toolCalls,
    tokens,
    costUsd: priced > 0 ? Math.round(cost * 1e6) / 1e6 : null,
    unpricedCalls: state.usage.length - priced,
    merges,
  };
}

/** One collator (localeCompare with options builds one per call: slow for 1,000 agents). */
const NAMES = new Intl.Collator('en', { numeric: true });

/** peer-2 before peer-10: names compare with their numbers as numbers. */
export function byName(a: { name: string }, b: { name: string }): number {
  return NAMES.compare(a.name, b.name);
}
