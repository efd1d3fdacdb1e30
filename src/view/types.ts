/**
 * The view model of a run: plain data folded from its events, shared by the terminal progress, the
 * HTML report and the browser dashboard. Browser-safe: this folder imports only types from core.
 */
import type { ContextKind } from '../core/events.js';

/** What an agent is doing now (see docs/report.md for the exact rules). */
export type AgentState = 'queued' | 'thinking' | 'tool' | 'waiting' | 'idle' | 'done' | 'stopped' | 'failed';

export const AGENT_STATES: readonly AgentState[] = [
  'queued',
  'thinking',
  'tool',
  'waiting',
  'idle',
  'done',
  'stopped',
  'failed',
];

/** States an agent never leaves (agent.finished). */
export const FINAL_STATES: ReadonlySet<AgentState> = new Set(['done', 'stopped', 'failed']);

/** Token counts with cached input apart (`uncached` is input that was not served from a cache). */
export interface TokenSplit {
  uncached: number;
  cached: number;
  cacheWrite: number;
  output: number;
}

export interface ClaimView {
  claimId: number;
  scope: string;
  summary: string;
  sinceMs: number;
}

/** A claim held now, with its holder (the run's claims table as the log tells it). */
export interface HeldClaim extends ClaimView {
  agent: string;
}

/**
 * A commit of the agent's work: one Colony made on its branch (commit.created, `files` known), or the
 * commit a merge request of the agent's submitted (`mr`), with the main commit it landed as.
 */
export interface CommitView {
  commit: string;
  branch: string;
  files: number | null;
  tMs: number;
  mr: number | null;
  /** The hub main commit its merge request landed as; null while pending or when rejected. */
  landedAs: string | null;
}

export interface AgentView {
  name: string;
  profile: string | null;
  model: string | null;
  /** Its step cap (agent.started, subagent.created), null before it is known. */
  maxSteps: number | null;
  state: AgentState;
  /** When the current state began (epoch ms). */
  stateSinceMs: number;
  claim: ClaimView | null;
  lastAction: string | null;
  lastActionMs: number | null;
  steps: number;
  toolCalls: number;
  tokens: TokenSplit;
  /** null when no call of this agent was priced. */
  costUsd: number | null;
  startedMs: number | null;
  finishedMs: number | null;
  /** agent.finished status and reason (done | failed | stopped), null while running. */
  finishStatus: string | null;
  finishReason: string | null;
  /** agent.finished stopReason (answered, max_steps, aborted, …). */
  stopReason: string | null;
  branch: string | null;
  commits: CommitView[];
  /** Fleet runs: the worker that took the agent's session last (agent.placed); null in-process. */
  worker: string | null;
  /** agent.placed events: one per session taken (a takeover or a subagent's next task adds one; 0 in-process). */
  placements: number;
}

/** One bar of the Gantt timeline: a model call or a tool call. `open` bars are still running. */
export interface TimelineBar {
  kind: 'model' | 'tool';
  startMs: number;
  endMs: number;
  /** What the call was (`bash`, `read, edit`, `answer`); renderers prefix `step N`. */
  label: string;
  step: number;
  error: boolean;
  open: boolean;
  /** A tool during which the agent waits on others (message_read, merge_request, sync, assign_task…). */
  wait: boolean;
}

export interface TimelineLane {
  agent: string;
  bars: TimelineBar[];
}

/** Per time bucket, how many agents were in a model call / a tool call (time-weighted average). */
export interface AggregatedTimeline {
  startMs: number;
  bucketMs: number;
  buckets: Array<{ tMs: number; model: number; tool: number }>;
  agents: number;
}

export interface CriticalSegment {
  agent: string;
  startMs: number;
  endMs: number;
  label: string;
  steps: number;
}

export interface CriticalPath {
  /** How it was computed: `longest-agent` (solo, peers) or `lead-turns` (orchestrated). */
  method: 'longest-agent' | 'lead-turns' | 'none';
  description: string;
  segments: CriticalSegment[];
  steps: number;
  durationMs: number;
}

/** One model call's usage at the moment its response was logged. */
export interface UsagePoint {
  tMs: number;
  agent: string;
  uncached: number;
  cached: number;
  /** Prompt-cache writes (Anthropic bills them apart; the cost includes them). */
  cacheWrite: number;
  output: number;
  costUsd: number | null;
}

/** Bucketed usage over time: per-bucket sums and running totals at each bucket's end. */
export interface UsageSeries {
  startMs: number;
  bucketMs: number;
  buckets: Array<{
    tMs: number;
    uncached: number;
    cached: number;
    cacheWrite: number;
    output: number;
    costUsd: number;
    cumUncached: number;
    cumCached: number;
    cumOutput: number;
    cumCostUsd: number;
  }>;
}

export type MergeStatus = 'requested' | 'awaiting_approval' | 'approved' | 'landed' | 'rejected';

export interface MergeView {
  mr: number;
  agent: string | null;
  branch: string;
  note: string;
  status: MergeStatus;
  requestedMs: number;
  decidedMs: number | null;
  reason: string | null;
  files: string[];
  commit: string | null;
  batch: number[];
  /** The rejection's command output (first 4,000 characters). */
  output: string | null;
}

export interface ContextEntryView {
  id: number;
  seq: number;
  tMs: number;
  agent: string | null;
  kind: ContextKind;
  summary: string;
  scope: string[] | null;
}

export interface MessageView {
  id: number;
  seq: number;
  tMs: number;
  from: string | null;
  to: string | null;
  channel: string | null;
  text: string;
  deliveredMs: number | null;
  via: string | null;
}

export interface LimitView {
  tMs: number;
  agent: string | null;
  limit: string;
  value: number;
  used: number;
}

export interface RunTotals {
  steps: number;
  modelCalls: number;
  toolCalls: number;
  tokens: TokenSplit;
  costUsd: number | null;
  unpricedCalls: number;
  merges: { requested: number; landed: number; rejected: number; pending: number };
}

export interface VerifyView {
  command: string;
  passed: boolean;
  exitCode: number | null;
  /** First 4,000 characters. */
  output: string;
}

export interface RunView {
  runId: string | null;
  topology: string | null;
  goal: string | null;
  model: string | null;
  status: string;
  reason: string | null;
  resultBranch: string | null;
  startMs: number | null;
  /** The last event's time, or `nowMs` while the run is running. */
  endMs: number | null;
  wallClockMs: number;
  agents: AgentView[];
  byState: Record<AgentState, number>;
  totals: RunTotals;
  lanes: TimelineLane[];
  criticalPath: CriticalPath;
  usage: UsagePoint[];
  merges: MergeView[];
  context: ContextEntryView[];
  messages: MessageView[];
  limits: LimitView[];
  claims: HeldClaim[];
  verify: VerifyView | null;
  events: number;
  lastSeq: number;
}
