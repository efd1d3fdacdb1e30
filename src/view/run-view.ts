/** Folding a run's events into its view model (see types.ts). */
import type { StoredEvent } from '../core/events.js';
import { criticalPath } from './critical-path.js';
import { applyEvent, emptyRunState, newAgent, type RunState } from './run-state.js';
import { AGENT_STATES, type AgentState, type AgentView, type RunView, type TimelineLane } from './types.js';

/** The view of a run from its events (in log order). `nowMs` closes still-open bars of a live run. */
export function buildRunView(events: readonly StoredEvent[], nowMs?: number): RunView {
  const state = emptyRunState();
  for (const event of events) applyEvent(state, event);
  return toRunView(state, nowMs);
}

/** Snapshot of an accumulator (a live run: apply new events, then call this a few times a second). */
export function toRunView(state: RunState, nowMs?: number): RunView {
  const running = state.status === 'running';
  const endMs = running && nowMs !== undefined ? Math.max(nowMs, state.lastMs ?? nowMs) : state.lastMs;
  const now = endMs ?? 0;
  // Senders that never started (e.g. the integration queue posting a message) are not agents.
  const planned = new Set(state.plannedAgents);
  const known = [...state.agents.values()].filter(
    (a) => a.startedMs !== null || a.steps > 0 || planned.has(a.name),
  );
  const agents: AgentView[] = known.map((a) => ({
    ...a,
    tokens: { ...a.tokens },
    claim: a.claim ? { ...a.claim } : null,
    commits: [...a.commits],
  }));
  // Peers still queued behind the concurrency limit have no events yet: show them as idle.
  for (const name of state.plannedAgents)
    if (!state.agents.has(name)) agents.push(newAgent(name, state.firstMs ?? now));
  agents.sort(byName);
  const lanes: TimelineLane[] = agents
    .filter((a) => state.bars.has(a.name) || state.openTools.has(a.name))
    .map((a) => ({ agent: a.name, bars: [...(state.bars.get(a.name) ?? [])] }));
  if (running)
    for (const lane of lanes) {
      const agent = agents.find((a) => a.name === lane.agent);
      for (const tool of state.openTools.get(lane.agent)?.values() ?? [])
        lane.bars.push({
          kind: 'tool',
          startMs: tool.startMs,
          endMs: now,
          label: tool.name,
          step: tool.step,
          error: false,
          open: true,
        });
      if (agent?.state === 'thinking')
        lane.bars.push({
          kind: 'model',
          startMs: agent.stateSinceMs,
          endMs: now,
          label: `step ${agent.steps + 1}`,
          step: agent.steps + 1,
          error: false,
          open: true,
        });
    }
  const byState = Object.fromEntries(AGENT_STATES.map((s) => [s, 0])) as Record<AgentState, number>;
  for (const a of agents) byState[a.state] += 1;
  const merges = [...state.merges.values()].sort((a, b) => a.mr - b.mr);
  const priced = state.usage.filter((u) => u.costUsd !== null);
  const tokens = { uncached: 0, cached: 0, cacheWrite: 0, output: 0 };
  let toolCalls = 0;
  for (const a of agents) {
    tokens.uncached += a.tokens.uncached;
    tokens.cached += a.tokens.cached;
    tokens.cacheWrite += a.tokens.cacheWrite;
    tokens.output += a.tokens.output;
    toolCalls += a.toolCalls;
  }
  const costUsd =
    priced.length > 0 ? Math.round(priced.reduce((sum, u) => sum + (u.costUsd ?? 0), 0) * 1e6) / 1e6 : null;
  return {
    runId: state.runId,
    topology: state.topology,
    goal: state.goal,
    model: state.model,
    status: state.status,
    reason: state.reason,
    startMs: state.firstMs,
    endMs,
    wallClockMs: state.firstMs !== null && endMs !== null ? endMs - state.firstMs : 0,
    agents,
    byState,
    totals: {
      steps: state.usage.length,
      modelCalls: state.usage.length,
      toolCalls,
      tokens,
      costUsd,
      unpricedCalls: state.usage.length - priced.length,
      merges: {
        requested: merges.length,
        landed: merges.filter((m) => m.status === 'landed').length,
        rejected: merges.filter((m) => m.status === 'rejected').length,
        pending: merges.filter((m) => m.decidedMs === null).length,
      },
    },
    lanes,
    criticalPath: criticalPath(agents, lanes, [...state.tasks.values()], now),
    usage: [...state.usage],
    merges: merges.map((m) => ({ ...m })),
    context: [...state.context],
    messages: [...state.messages.values()].sort((a, b) => a.seq - b.seq),
    limits: [...state.limits],
    verify: state.verify,
    events: state.events,
    lastSeq: state.lastSeq,
  };
}

/** peer-2 before peer-10: names compare with their numbers as numbers. */
function byName(a: { name: string }, b: { name: string }): number {
  return a.name.localeCompare(b.name, 'en', { numeric: true });
}
