/**
 * The run accumulator, the one fold of a run's events for the whole product (report, compare,
 * terminal progress, the run summary and its metrics, the dashboard server): events are applied one at
 * a time (a finished run's log, or a live stream), and every output is a projection of it at any
 * moment: `toRunView` (run-view.ts), `toCompactView` (compact-view.ts), `toRunSummary` (summary.ts),
 * `toRunMetrics` (metrics.ts). Plain data + functions; browser-safe (types only from core).
 */
import type { EventKind, RunStatus, StoredEvent } from '../core/events.js';
import { agentHandlers } from './fold/agent.js';
import { coordinationHandlers } from './fold/coordination.js';
import { agentOf } from './fold/helpers.js';
import { integrationHandlers } from './fold/integration.js';
import { runHandlers } from './fold/run.js';
import { tasksHandlers } from './fold/tasks.js';
import { workflowHandlers } from './fold/workflow.js';

export { MAX_OUTPUT, newAgent, WAITING_TOOLS } from './fold/helpers.js';

import type {
  AgentView,
  ContextEntryView,
  HeldClaim,
  LimitView,
  MergeView,
  MessageView,
  RunView,
  TimelineBar,
  UsagePoint,
  VerifyView,
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

/** A workflow stage or step (src/workflow) as its events place it in the log, by sequence number. */
/** A `w.dag`'s plan as logged before it ran (src/workflow/critical-path.ts). */
export interface WorkflowPlan {
  dag: string;
  /** The enclosing stage (null at the top). */
  stage: string | null;
  /** Its nodes' stage ids. */
  nodes: string[];
  criticalPath: string[];
  criticalSteps: number;
}

export interface WorkflowNode {
  id: string;
  /** The enclosing stage (null at the top). */
  parent: string | null;
  startSeq: number;
  /** null while it runs. */
  endSeq: number | null;
  /** A step's attempts' agents (one entry per agent per attempt); empty for a stage. */
  agents: string[];
}

export interface OpenTool {
  startMs: number;
  name: string;
  step: number;
}

/** The run's header fields are the view's own (run.started / result.fetched / run.finished). */
export interface RunState
  extends Pick<RunView, 'runId' | 'topology' | 'goal' | 'model' | 'reason' | 'resultBranch'> {
  status: RunStatus;
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
  /** Reasoning tokens per agent, keyed in the order agents first answered (the summary's order). */
  reasoningByAgent: Map<string, number>;
  /** Input tokens of every model response, and of coordination turns (fold/usage.ts). */
  input: { all: number; uncached: number; coordinationAll: number; coordinationUncached: number };
  /** Claims held now by claim id. */
  claims: Map<number, HeldClaim>;
  merges: Map<number, MergeView>;
  context: ContextEntryView[];
  messages: Map<number, MessageView>;
  limits: LimitView[];
  verify: VerifyView | null;
  /** The first verify an agent ran (e.g. the acceptance check): the summary's when the run has none. */
  agentVerify: Omit<VerifyView, 'output'> | null;
  /** orchestrated --accept: the last acceptance round. */
  acceptance: { round: number; passed: boolean } | null;
  tasks: Map<string, TaskRecord>;
  /** Workflow programs: stages and steps by id (fold/workflow.ts). */
  workflow: {
    stages: Map<string, WorkflowNode>;
    steps: Map<string, WorkflowNode>;
    /** `w.dag` plans by dag id (workflow.planned), in log order. */
    plans: Map<string, WorkflowPlan>;
  };
  events: number;
  lastSeq: number;
}

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
    reasoningByAgent: new Map(),
    input: { all: 0, uncached: 0, coordinationAll: 0, coordinationUncached: 0 },
    claims: new Map(),
    merges: new Map(),
    context: [],
    messages: new Map(),
    limits: [],
    verify: null,
    agentVerify: null,
    acceptance: null,
    tasks: new Map(),
    workflow: { stages: new Map(), steps: new Map(), plans: new Map() },
    events: 0,
    lastSeq: 0,
  };
}

/** One event as a handler sees it: the state, the event, its time and its agent (created on first sight). */
export interface Applied<K extends EventKind> {
  state: RunState;
  event: StoredEvent<K>;
  at: number;
  agent: AgentView | null;
  name: string | null;
}

export type Handler<K extends EventKind> = (applied: Applied<K>) => void;
export type Handlers = { [K in EventKind]?: Handler<K> };

/** Handler tables by domain (fold/): at most one handler per kind. */
const HANDLERS: Handlers = {
  ...runHandlers,
  ...agentHandlers,
  ...coordinationHandlers,
  ...integrationHandlers,
  ...tasksHandlers,
  ...workflowHandlers,
};

/** Applies one event (in log order). Unknown kinds are counted and otherwise ignored. */
export function applyEvent(state: RunState, event: StoredEvent): void {
  const at = Date.parse(event.ts);
  state.events += 1;
  state.lastSeq = Math.max(state.lastSeq, event.seq);
  state.runId ??= event.runId;
  // What was done with a finished run's result (publish.*, src/forge/) and notifications sent about
  // the run (notify.*, src/notify/, maybe retried after it ended) do not move the run's clock.
  if (Number.isFinite(at) && !event.kind.startsWith('publish.') && !event.kind.startsWith('notify.')) {
    state.firstMs = state.firstMs === null ? at : Math.min(state.firstMs, at);
    state.lastMs = state.lastMs === null ? at : Math.max(state.lastMs, at);
  }
  const name = event.agent;
  const agent = name ? agentOf(state, name, at) : null;
  const handler = HANDLERS[event.kind] as Handler<EventKind> | undefined;
  handler?.({ state, event, at, agent, name });
}

/** A run's events (in log order) folded into a fresh state. */
export function foldEvents(events: readonly StoredEvent[]): RunState {
  const state = emptyRunState();
  for (const event of events) applyEvent(state, event);
  return state;
}
