/** What the fold's handlers share: agent lookup, state changes, timeline bars, constants. */
import { describeToolCall, oneLine } from '../describe.js';
import type { RunState } from '../run-state.js';
import { type AgentState, type AgentView, FINAL_STATES, type TimelineBar } from '../types.js';

export { describeToolCall, oneLine };

/** Tools during which an agent waits on others rather than works. */
export const WAITING_TOOLS: ReadonlySet<string> = new Set([
  'assign_task',
  'message_read',
  'merge_request',
  'sync',
  'wait',
]);

/** Long outputs (verify, rejected merges) are kept to this many characters. */
export const MAX_OUTPUT = 4000;

export function newAgent(name: string, atMs: number): AgentView {
  return {
    name,
    profile: null,
    model: null,
    maxSteps: null,
    // Known but not started: a peer waiting behind the concurrency limit.
    state: 'queued',
    stateSinceMs: atMs,
    claim: null,
    lastAction: null,
    lastActionMs: null,
    steps: 0,
    toolCalls: 0,
    tokens: { uncached: 0, cached: 0, cacheWrite: 0, output: 0 },
    costUsd: null,
    startedMs: null,
    finishedMs: null,
    finishStatus: null,
    finishReason: null,
    stopReason: null,
    branch: null,
    commits: [],
    worker: null,
    placements: 0,
  };
}

export function agentOf(state: RunState, name: string, atMs: number): AgentView {
  let agent = state.agents.get(name);
  if (!agent) {
    agent = newAgent(name, atMs);
    state.agents.set(name, agent);
  }
  return agent;
}

export function setState(agent: AgentView, next: AgentState, atMs: number): void {
  if (FINAL_STATES.has(agent.state)) return;
  if (agent.state !== next) {
    agent.state = next;
    agent.stateSinceMs = atMs;
  }
}

export function act(agent: AgentView, what: string, atMs: number): void {
  agent.lastAction = what;
  agent.lastActionMs = atMs;
}

export function pushBar(state: RunState, agent: string, bar: TimelineBar): void {
  let lane = state.bars.get(agent);
  if (!lane) {
    lane = [];
    state.bars.set(agent, lane);
  }
  lane.push(bar);
}

/** A merge request landed or rejected at `atMs` (undefined when its request is not in the log). */
export function decide(state: RunState, mr: number, status: 'landed' | 'rejected', atMs: number) {
  const merge = state.merges.get(mr);
  if (merge) {
    merge.status = status;
    merge.decidedMs = atMs;
  }
  return merge;
}

/** The profile an agent started with (agent.started); `unknown` for one that never started. */
export function roleOf(agent: AgentView): string {
  return agent.startedMs !== null ? (agent.profile ?? 'unknown') : 'unknown';
}

/** agent.finished status → state (an unknown status counts as failed). */
export function finishedState(status: string): AgentState {
  return status === 'done' || status === 'stopped' ? status : 'failed';
}
