/**
 * The run accumulator, the one fold of a run's events for the whole product (report, compare,
 * terminal progress, the dashboard server): events are applied one at a time (a finished run's log,
 * or a live stream), and `toRunView` (run-view.ts) or `toCompactView` (compact-view.ts) snapshot it at
 * any moment. Plain data + functions; browser-safe (types only from core).
 */
import type { EventKind, EventPayloads, StoredEvent } from '../core/events.js';
import { describeToolCall, oneLine } from './describe.js';
import {
  type AgentState,
  type AgentView,
  type ContextEntryView,
  FINAL_STATES,
  type HeldClaim,
  type LimitView,
  type MergeView,
  type MessageView,
  type RunView,
  type TimelineBar,
  type UsagePoint,
  type VerifyView,
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

/** The run's header fields are the view's own (run.started / run.finished). */
export interface RunState
  extends Pick<RunView, 'runId' | 'topology' | 'goal' | 'model' | 'status' | 'reason' | 'resultBranch'> {
  /** run.started.data.config (the RunSpec: limits, concurrency, agents…). */
  config: Record<string, unknown>;
  /** peers: peer-1…peer-N from the configured agent count, so peers not started yet show as queued. */
  plannedAgents: string[];
  firstMs: number | null;
  lastMs: number | null;
  agents: Map<string, AgentView>;
  bars: Map<string, TimelineBar[]>;
  openTools: Map<string, Map<string, OpenTool>>;
  /** Tool calls of each agent's last model response not finished yet (state stays `tool` till 0). */
  pendingCalls: Map<string, number>;
  usage: UsagePoint[];
  /** Reasoning tokens (a part of output some providers report apart). */
  reasoningTokens: number;
  /** Claims held now by claim id. */
  claims: Map<number, HeldClaim>;
  merges: Map<number, MergeView>;
  context: ContextEntryView[];
  messages: Map<number, MessageView>;
  limits: LimitView[];
  verify: VerifyView | null;
  tasks: Map<string, TaskRecord>;
  events: number;
  lastSeq: number;
}

/** Tools during which an agent waits on others rather than works. */
export const WAITING_TOOLS: ReadonlySet<string> = new Set([
  'assign_task',
  'message_read',
  'merge_request',
  'sync',
  'wait',
]);

/** Long outputs (verify, rejected merges) are kept to this many characters. */
const MAX_OUTPUT = 4000;

export function emptyRunState(): RunState {
  return {
    runId: null,
    topology: null,
    goal: null,
    model: null,
    status: 'running',
    reason: null,
    resultBranch: null,
    config: {},
    plannedAgents: [],
    firstMs: null,
    lastMs: null,
    agents: new Map(),
    bars: new Map(),
    openTools: new Map(),
    pendingCalls: new Map(),
    usage: [],
    reasoningTokens: 0,
    claims: new Map(),
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

function setState(agent: AgentView, next: AgentState, atMs: number): void {
  if (FINAL_STATES.has(agent.state)) return;
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

/** A merge request landed or rejected at `atMs` (undefined when its request is not in the log). */
function decide(state: RunState, mr: number, status: 'landed' | 'rejected', atMs: number) {
  const merge = state.merges.get(mr);
  if (merge) {
    merge.status = status;
    merge.decidedMs = atMs;
  }
  return merge;
}

/** agent.finished status → state (an unknown status counts as failed). */
function finishedState(status: string): AgentState {
  return status === 'done' || status === 'stopped' ? status : 'failed';
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
      state.config = d.config;
      const planned = typeof d.config.agents === 'number' ? d.config.agents : 0;
      if (d.topology === 'peers')
        state.plannedAgents = Array.from({ length: planned }, (_, i) => `peer-${i + 1}`);
      break;
    }
    case 'run.finished': {
      const d = data(event, 'run.finished');
      state.status = d.status;
      state.reason = d.reason;
      state.resultBranch = d.resultBranch;
      break;
    }
    case 'run.resumed':
      state.status = 'running';
      state.reason = null;
      break;
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
      agent.stopReason = d.stopReason;
      setState(agent, finishedState(d.status), at);
      agent.claim = null;
      act(agent, `finished (${d.status}): ${oneLine(d.reason || d.stopReason)}`, at);
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
      state.reasoningTokens += u.reasoning ?? 0;
      agent.steps += 1;
      agent.tokens.uncached += u.input;
      agent.tokens.cached += u.cachedInput ?? 0;
      agent.tokens.cacheWrite += u.cacheWrite ?? 0;
      agent.tokens.output += u.output;
      if (d.turn.costUsd !== null) agent.costUsd = (agent.costUsd ?? 0) + d.turn.costUsd;
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
      break;
    }
    case 'model.error': {
      if (!agent || !name) break;
      const d = data(event, 'model.error');
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
      act(agent, describeToolCall(d.name, d.arguments), at);
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
      break;
    }
    case 'claim.granted': {
      if (!agent || !name) break;
      const d = data(event, 'claim.granted');
      agent.claim = { claimId: d.claimId, scope: d.scope, summary: d.summary, sinceMs: at };
      state.claims.set(d.claimId, { ...agent.claim, agent: name });
      act(agent, `claimed ${d.scope}`, at);
      break;
    }
    case 'claim.released':
    case 'claim.expired': {
      const d = event.data as EventPayloads['claim.released'];
      const held = state.claims.get(d.claimId);
      state.claims.delete(d.claimId);
      // The table knows the holder; an expired claim's event agent may be someone else.
      const holder = held
        ? state.agents.get(held.agent)
        : event.kind === 'claim.expired'
          ? state.agents.get(data(event, 'claim.expired').holder)
          : agent;
      if (holder?.claim?.claimId === d.claimId) {
        // Show the holder's most recent other claim, if it still holds one.
        let other: HeldClaim | null = null;
        for (const c of state.claims.values()) if (c.agent === holder.name) other = c;
        holder.claim = other
          ? { claimId: other.claimId, scope: other.scope, summary: other.summary, sinceMs: other.sinceMs }
          : null;
      }
      break;
    }
    case 'claim.conflict':
      if (agent) {
        const d = data(event, 'claim.conflict');
        act(agent, `claim conflict on ${d.scope} (held by ${d.holder})`, at);
      }
      break;
    case 'commit.created': {
      if (!agent) break;
      const d = data(event, 'commit.created');
      agent.branch = d.branch;
      agent.commits.push({ commit: d.commit, branch: d.branch, files: d.files, tMs: at });
      break;
    }
    case 'limit.hit': {
      const d = data(event, 'limit.hit');
      state.limits.push({ tMs: at, agent: name, limit: d.limit, value: d.value, used: d.used });
      break;
    }
    case 'verify.finished': {
      // The run's verify; an agent's own verify (agent set) is one of its steps, not the result.
      if (name) break;
      const d = data(event, 'verify.finished');
      state.verify = {
        command: d.command,
        passed: d.passed,
        exitCode: d.exitCode,
        output: d.output.slice(0, MAX_OUTPUT),
      };
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
      if (agent) act(agent, `posted ${d.kind}: ${oneLine(d.summary, 90)}`, at);
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
      if (agent && d.via === 'interrupt')
        act(agent, `interrupted by ${d.messages.map((m) => m.from).join(', ')}`, at);
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
        output: null,
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
      const merge = decide(state, d.mr, 'landed', at);
      if (merge) {
        merge.commit = d.commit;
        merge.batch = d.batch;
      }
      break;
    }
    case 'merge.rejected': {
      const d = data(event, 'merge.rejected');
      const merge = decide(state, d.mr, 'rejected', at);
      if (merge) {
        merge.reason = d.reason;
        merge.files = d.files;
        merge.output = d.output.slice(0, MAX_OUTPUT);
      }
      break;
    }
    case 'subagent.created': {
      const d = data(event, 'subagent.created');
      const sub = agentOf(state, d.name, at);
      sub.profile = d.profile;
      sub.model = d.model;
      // Created by the lead, waiting for a task.
      setState(sub, 'idle', at);
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
      if (agent) {
        setState(agent, 'thinking', at);
        act(agent, `task ${data(event, 'task.started').task}`, at);
      }
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
