/**
 * The run accumulator: events are applied one at a time (a finished run's log, or a live stream), and
 * `toRunView` (run-view.ts) turns the state into the view model at any moment. Plain data + functions;
 * browser-safe (types only from core).
 */
import type { EventKind, EventPayloads, StoredEvent } from '../core/events.js';
import type {
  AgentView,
  ContextEntryView,
  LimitView,
  MergeView,
  MessageView,
  TimelineBar,
  UsagePoint,
} from './types.js';

/** A task a lead assigned to a subagent (orchestrated runs): the critical path follows these. */
export interface TaskRecord {
  task: string;
  lead: string;
  agent: string;
  /** The lead's model response (step) that assigned it. */
  leadStep: number;
  assignedMs: number;
  startMs: number | null;
  endMs: number | null;
  steps: number | null;
  status: string | null;
}

export interface OpenTool {
  startMs: number;
  name: string;
  step: number;
}

export interface RunState {
  runId: string | null;
  topology: string | null;
  goal: string | null;
  model: string | null;
  status: string;
  reason: string | null;
  /** peers: the configured agent count, so peers still queued show as idle. */
  plannedAgents: string[];
  firstMs: number | null;
  lastMs: number | null;
  agents: Map<string, AgentView>;
  bars: Map<string, TimelineBar[]>;
  openTools: Map<string, Map<string, OpenTool>>;
  /** Tool calls of each agent's last model response not finished yet (state stays `tool` till 0). */
  pendingCalls: Map<string, number>;
  usage: UsagePoint[];
  merges: Map<number, MergeView>;
  context: ContextEntryView[];
  messages: Map<number, MessageView>;
  limits: LimitView[];
  verify: { command: string; passed: boolean; exitCode: number | null } | null;
  tasks: Map<string, TaskRecord>;
  events: number;
  lastSeq: number;
}

/** Tools during which an agent waits on others rather than works. */
const WAITING_TOOLS = new Set(['assign_task']);

export function emptyRunState(): RunState {
  return {
    runId: null,
    topology: null,
    goal: null,
    model: null,
    status: 'running',
    reason: null,
    plannedAgents: [],
    firstMs: null,
    lastMs: null,
    agents: new Map(),
    bars: new Map(),
    openTools: new Map(),
    pendingCalls: new Map(),
    usage: [],
    merges: new Map(),
    context: [],
    messages: new Map(),
    limits: [],
    verify: null,
    tasks: new Map(),
    events: 0,
    lastSeq: 0,
  };
}

export function newAgent(name: string, atMs: number): AgentView {
  return {
    name,
    profile: null,
    model: null,
    state: 'idle',
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
    branch: null,
    commits: [],
  };
}

function agentOf(state: RunState, name: string, atMs: number): AgentView {
  let agent = state.agents.get(name);
  if (!agent) {
    agent = newAgent(name, atMs);
    state.agents.set(name, agent);
  }
  return agent;
}

function setState(agent: AgentView, next: AgentView['state'], atMs: number): void {
  if (agent.state === 'done' || agent.state === 'failed') return;
  if (agent.state !== next) {
    agent.state = next;
    agent.stateSinceMs = atMs;
  }
}

function act(agent: AgentView, what: string, atMs: number): void {
  agent.lastAction = what;
  agent.lastActionMs = atMs;
}

function pushBar(state: RunState, agent: string, bar: TimelineBar): void {
  let lane = state.bars.get(agent);
  if (!lane) {
    lane = [];
    state.bars.set(agent, lane);
  }
  lane.push(bar);
}

function data<K extends EventKind>(event: StoredEvent, _kind: K): EventPayloads[K] {
  return event.data as EventPayloads[K];
}

function clip(text: string, max = 80): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Applies one event (in log order). Unknown kinds are counted and otherwise ignored. */
export function applyEvent(state: RunState, event: StoredEvent): void {
  const at = Date.parse(event.ts);
  state.events += 1;
  state.lastSeq = Math.max(state.lastSeq, event.seq);
  state.runId ??= event.runId;
  if (Number.isFinite(at)) {
    state.firstMs = state.firstMs === null ? at : Math.min(state.firstMs, at);
    state.lastMs = state.lastMs === null ? at : Math.max(state.lastMs, at);
  }
  const name = event.agent;
  const agent = name ? agentOf(state, name, at) : null;
  switch (event.kind) {
    case 'run.started': {
      const d = data(event, 'run.started');
      state.topology = d.topology;
      state.goal = d.goal;
      state.model = d.model;
      const planned = typeof d.config.agents === 'number' ? d.config.agents : 0;
      if (d.topology === 'peers')
        state.plannedAgents = Array.from({ length: planned }, (_, i) => `peer-${i + 1}`);
      break;
    }
    case 'run.finished': {
      const d = data(event, 'run.finished');
      state.status = d.status;
      state.reason = d.reason;
      break;
    }
    case 'workspace.ready':
      if (agent) agent.branch = data(event, 'workspace.ready').branch;
      break;
    case 'agent.started': {
      if (!agent) break;
      const d = data(event, 'agent.started');
      agent.profile = d.profile;
      agent.model = d.model;
      agent.startedMs ??= at;
      setState(agent, 'thinking', at);
      act(agent, 'started', at);
      break;
    }
    case 'agent.finished': {
      if (!agent) break;
      const d = data(event, 'agent.finished');
      agent.finishedMs = at;
      agent.finishStatus = d.status;
      agent.finishReason = d.reason;
      setState(agent, d.status === 'done' ? 'done' : 'failed', at);
      agent.claim = null;
      act(agent, `finished: ${d.status} (${d.reason})`, at);
      break;
    }
    case 'model.response': {
      if (!agent || !name) break;
      const d = data(event, 'model.response');
      const u = d.turn.usage;
      const point: UsagePoint = {
        tMs: at,
        agent: name,
        uncached: u.input,
        cached: u.cachedInput ?? 0,
        output: u.output,
        costUsd: d.turn.costUsd,
      };
      state.usage.push(point);
      agent.steps += 1;
      agent.tokens.uncached += u.input;
      agent.tokens.cached += u.cachedInput ?? 0;
      agent.tokens.cacheWrite += u.cacheWrite ?? 0;
      agent.tokens.output += u.output;
      if (d.turn.costUsd !== null) agent.costUsd = (agent.costUsd ?? 0) + d.turn.costUsd;
      const calls = d.turn.toolCalls.map((c) => c.name);
      pushBar(state, name, {
        kind: 'model',
        startMs: at - Math.max(0, d.latencyMs),
        endMs: at,
        label: calls.length > 0 ? `step ${d.step} → ${calls.join(', ')}` : `step ${d.step}: answer`,
        step: d.step,
        error: false,
        open: false,
      });
      state.pendingCalls.set(name, calls.length);
      // Tools asked for run next; an answer with no tools ends the agent's work (idle until finished).
      setState(agent, calls.length > 0 ? 'tool' : 'idle', at);
      act(agent, calls.length > 0 ? `→ ${calls.join(', ')}` : `answer: ${clip(d.turn.text)}`, at);
      break;
    }
    case 'model.error': {
      if (!agent || !name) break;
      const d = data(event, 'model.error');
      pushBar(state, name, {
        kind: 'model',
        startMs: at,
        endMs: at,
        label: `step ${d.step}: model error (${d.kind})`,
        step: d.step,
        error: true,
        open: false,
      });
      act(agent, `model error (${d.kind}): ${clip(d.message)}`, at);
      break;
    }
    case 'model.retry': {
      if (!agent || !name) break;
      const d = data(event, 'model.retry');
      setState(agent, 'waiting', at);
      act(agent, `retrying model call (attempt ${d.attempt}, ${d.kind})`, at);
      break;
    }
    case 'tool.started': {
      if (!agent || !name) break;
      const d = data(event, 'tool.started');
      let open = state.openTools.get(name);
      if (!open) {
        open = new Map();
        state.openTools.set(name, open);
      }
      open.set(d.callId, { startMs: at, name: d.name, step: d.step });
      setState(agent, WAITING_TOOLS.has(d.name) ? 'waiting' : 'tool', at);
      act(agent, d.name, at);
      break;
    }
    case 'tool.finished': {
      if (!agent || !name) break;
      const d = data(event, 'tool.finished');
      const open = state.openTools.get(name);
      const started = open?.get(d.callId);
      open?.delete(d.callId);
      agent.toolCalls += 1;
      pushBar(state, name, {
        kind: 'tool',
        startMs: started?.startMs ?? at - Math.max(0, d.durationMs),
        endMs: at,
        label: `${d.name}${d.isError ? ' (error)' : ''}`,
        step: d.step,
        error: d.isError,
        open: false,
      });
      const pending = Math.max(0, (state.pendingCalls.get(name) ?? 1) - 1);
      state.pendingCalls.set(name, pending);
      if (pending === 0 && (!open || open.size === 0)) setState(agent, 'thinking', at);
      act(agent, clip(d.summary || d.name), at);
      break;
    }
    case 'claim.granted': {
      if (!agent) break;
      const d = data(event, 'claim.granted');
      agent.claim = { claimId: d.claimId, scope: d.scope, summary: d.summary, sinceMs: at };
      act(agent, `claimed ${d.scope}`, at);
      break;
    }
    case 'claim.released':
    case 'claim.expired': {
      const d = event.data as EventPayloads['claim.released'];
      // An expired claim names its holder in the data; the event's agent may be someone else.
      const holder =
        event.kind === 'claim.expired' ? state.agents.get(data(event, 'claim.expired').holder) : agent;
      if (holder?.claim?.claimId === d.claimId) holder.claim = null;
      break;
    }
    case 'claim.conflict':
      if (agent) act(agent, `claim conflict on ${data(event, 'claim.conflict').scope}`, at);
      break;
    case 'commit.created':
      if (agent) agent.commits.push(data(event, 'commit.created').commit);
      break;
    case 'limit.hit': {
      const d = data(event, 'limit.hit');
      state.limits.push({ tMs: at, agent: name, limit: d.limit, value: d.value, used: d.used });
      break;
    }
    case 'verify.finished': {
      const d = data(event, 'verify.finished');
      state.verify = { command: d.command, passed: d.passed, exitCode: d.exitCode };
      break;
    }
    case 'context.posted': {
      const d = data(event, 'context.posted');
      state.context.push({
        id: d.id,
        seq: event.seq,
        tMs: at,
        agent: name,
        kind: d.kind,
        summary: d.summary,
        scope: d.scope,
      });
      break;
    }
    case 'message.sent': {
      const d = data(event, 'message.sent');
      state.messages.set(d.id, {
        id: d.id,
        seq: event.seq,
        tMs: at,
        from: name,
        to: d.to,
        channel: d.channel,
        text: d.text,
        deliveredMs: null,
        via: null,
      });
      break;
    }
    case 'message.delivered': {
      const d = data(event, 'message.delivered');
      for (const id of d.ids) {
        const message = state.messages.get(id);
        if (message && message.deliveredMs === null) {
          message.deliveredMs = at;
          message.via = d.via;
        }
      }
      break;
    }
    case 'merge.requested': {
      const d = data(event, 'merge.requested');
      state.merges.set(d.mr, {
        mr: d.mr,
        agent: name,
        branch: d.branch,
        note: d.note,
        status: 'requested',
        requestedMs: at,
        decidedMs: null,
        reason: null,
        files: [],
        commit: d.commit,
        batch: [],
      });
      if (agent) act(agent, `merge request #${d.mr}`, at);
      break;
    }
    case 'merge.awaiting_approval':
    case 'merge.approved': {
      const merge = state.merges.get((event.data as { mr: number }).mr);
      if (merge && merge.decidedMs === null)
        merge.status = event.kind === 'merge.approved' ? 'approved' : 'awaiting_approval';
      break;
    }
    case 'merge.landed': {
      const d = data(event, 'merge.landed');
      const merge = state.merges.get(d.mr);
      if (merge) {
        merge.status = 'landed';
        merge.decidedMs = at;
        merge.commit = d.commit;
        merge.batch = d.batch;
      }
      break;
    }
    case 'merge.rejected': {
      const d = data(event, 'merge.rejected');
      const merge = state.merges.get(d.mr);
      if (merge) {
        merge.status = 'rejected';
        merge.decidedMs = at;
        merge.reason = d.reason;
        merge.files = d.files;
      }
      break;
    }
    case 'subagent.created': {
      const d = data(event, 'subagent.created');
      const sub = agentOf(state, d.name, at);
      sub.profile = d.profile;
      sub.model = d.model;
      if (!state.plannedAgents.includes(d.name)) state.plannedAgents.push(d.name);
      break;
    }
    case 'task.assigned': {
      if (!name) break;
      const d = data(event, 'task.assigned');
      state.tasks.set(d.task, {
        task: d.task,
        lead: name,
        agent: d.agent,
        leadStep: d.leadStep,
        assignedMs: at,
        startMs: null,
        endMs: null,
        steps: null,
        status: null,
      });
      break;
    }
    case 'task.started': {
      const task = state.tasks.get(data(event, 'task.started').task);
      if (task) task.startMs = at;
      if (agent) act(agent, `task ${data(event, 'task.started').task}`, at);
      break;
    }
    case 'task.finished': {
      const d = data(event, 'task.finished');
      const task = state.tasks.get(d.task);
      if (task) {
        task.endMs = at;
        task.steps = d.steps;
        task.status = d.status;
      }
      // Between tasks a subagent waits for the lead's next assignment.
      const sub = state.agents.get(d.agent);
      if (sub) setState(sub, 'idle', at);
      break;
    }
    default:
      break;
  }
}
