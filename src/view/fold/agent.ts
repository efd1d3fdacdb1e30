/** An agent's loop: its worker (fleet), start, finish, model responses and errors, retries, tool calls. */
import type { Handlers } from '../run-state.js';
import { FINAL_STATES } from '../types.js';
import {
  act,
  describeToolCall,
  finishedState,
  oneLine,
  pushBar,
  setState,
  WAITING_TOOLS,
} from './helpers.js';
import { addUsage } from './usage.js';

export const agentHandlers: Handlers = {
  // Fleet runs: the latest placement wins (a takeover replaces the lost worker); the state is left
  // alone, since agent.started or the replayed steps say what the agent does.
  'agent.placed': ({ event, at, agent }) => {
    if (!agent) return;
    const d = event.data;
    agent.worker = d.worker;
    agent.placements += 1;
    act(
      agent,
      d.takeover
        ? `taken over by worker ${d.worker} (epoch ${d.epoch})`
        : `placed on worker ${d.worker} (epoch ${d.epoch})`,
      at,
    );
  },
  // The run has no notes of its own: the lost worker's unfinished agents say it, until a takeover.
  'worker.lost': ({ state, event, at }) => {
    const d = event.data;
    for (const agent of state.agents.values())
      if (agent.worker === d.worker && !FINAL_STATES.has(agent.state))
        act(agent, `worker ${d.worker} lost (silent ${d.silentMs} ms): waiting for another worker`, at);
  },
  'agent.started': ({ event, at, agent }) => {
    if (!agent) return;
    const d = event.data;
    agent.profile = d.profile;
    agent.model = d.model;
    agent.maxSteps = d.maxSteps;
    agent.startedMs ??= at;
    setState(agent, 'thinking', at);
    act(agent, 'started', at);
  },
  'agent.finished': ({ event, at, agent }) => {
    if (!agent) return;
    const d = event.data;
    agent.finishedMs = at;
    agent.finishStatus = d.status;
    agent.finishReason = d.reason;
    agent.stopReason = d.stopReason;
    setState(agent, finishedState(d.status), at);
    agent.claim = null;
    act(agent, `finished (${d.status}): ${oneLine(d.reason || d.stopReason)}`, at);
  },
  'model.response': ({ state, event, at, agent, name }) => {
    if (!agent || !name) return;
    const d = event.data;
    addUsage(state, agent, at, d.turn);
    const calls = d.turn.toolCalls.map((c) => c.name);
    // Labels reuse the event's strings where they can (one tool: its name): in a 100k-event fold a
    // new string per bar is a visible cost. Renderers prefix the step.
    const asked = calls.length === 1 ? (calls[0] ?? '') : calls.length > 1 ? calls.join(', ') : 'answer';
    pushBar(state, name, {
      kind: 'model',
      startMs: at - Math.max(0, d.latencyMs),
      endMs: at,
      label: asked,
      step: d.step,
      error: false,
      open: false,
      wait: false,
    });
    state.pendingCalls.set(name, calls.length);
    // Tools asked for run next; an answer with no tools ends the agent's work (idle until finished).
    setState(agent, calls.length > 0 ? 'tool' : 'idle', at);
    act(agent, calls.length > 0 ? `calls ${asked}` : `says ${oneLine(d.turn.text || '(nothing)')}`, at);
  },
  'model.error': ({ state, event, at, agent, name }) => {
    if (!agent || !name) return;
    const d = event.data;
    pushBar(state, name, {
      kind: 'model',
      startMs: at,
      endMs: at,
      label: `model error (${d.kind})`,
      step: d.step,
      error: true,
      open: false,
      wait: false,
    });
    act(agent, `model error (${d.kind}): ${oneLine(d.message)}`, at);
  },
  'model.retry': ({ event, at, agent, name }) => {
    if (!agent || !name) return;
    const d = event.data;
    setState(agent, 'waiting', at);
    act(agent, `retrying model call (attempt ${d.attempt}, ${d.kind})`, at);
  },
  'tool.started': ({ state, event, at, agent, name }) => {
    if (!agent || !name) return;
    const d = event.data;
    let open = state.openTools.get(name);
    if (!open) {
      open = new Map();
      state.openTools.set(name, open);
    }
    open.set(d.callId, { startMs: at, name: d.name, step: d.step });
    setState(agent, WAITING_TOOLS.has(d.name) ? 'waiting' : 'tool', at);
    act(agent, describeToolCall(d.name, d.arguments), at);
  },
  'tool.finished': ({ state, event, at, agent, name }) => {
    if (!agent || !name) return;
    const d = event.data;
    const open = state.openTools.get(name);
    const started = open?.get(d.callId);
    open?.delete(d.callId);
    agent.toolCalls += 1;
    pushBar(state, name, {
      kind: 'tool',
      startMs: started?.startMs ?? at - Math.max(0, d.durationMs),
      endMs: at,
      label: d.isError ? `${d.name} (error)` : d.name,
      step: d.step,
      error: d.isError,
      open: false,
      wait: WAITING_TOOLS.has(d.name),
    });
    const pending = Math.max(0, (state.pendingCalls.get(name) ?? 1) - 1);
    state.pendingCalls.set(name, pending);
    if (pending === 0 && (!open || open.size === 0)) setState(agent, 'thinking', at);
    // A success keeps the call's description (more telling than "ok"); a failure says why.
    if (d.isError) act(agent, `${d.name} failed: ${oneLine(d.summary, 90)}`, at);
  },
};
