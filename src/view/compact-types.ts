/**
 * The compact run view: the JSON the dashboard's API serves (`GET /api/runs/ID`), sized for a browser
 * following a 1,000-agent / 100k-event run. Same fold and rules as `RunView` (run-state.ts); times are
 * ISO strings and the timeline is pre-aggregated into flat numeric segments.
 */
import type { ContextKind, UsageTotals } from '../core/events.js';
import type { LimitRow } from './limits.js';
import type { SandboxView } from './sandbox.js';
import type { AgentState, CriticalPath, MergeStatus, VerifyView } from './types.js';

/** Timeline segment kinds (numeric so a 1,000-agent timeline stays small on the wire). */
export const SEG_MODEL = 0;
export const SEG_TOOL = 1;
export const SEG_WAIT = 2;
/** A model or tool call that failed (a wait that failed stays a wait, as in the report). */
export const SEG_ERROR = 3;

export interface AgentRow {
  name: string;
  profile: string;
  /** The model the agent runs on (its `agent.started`), null before it started. */
  model: string | null;
  state: AgentState;
  /** When the current state began. */
  since: string;
  steps: number;
  toolCalls: number;
  /** null when none of the agent's calls was priced (an unpriced model is never shown as $0). */
  costUsd: number | null;
  /** `input` is uncached input; reasoning is counted per run only (0 here). */
  tokens: UsageTotals;
  /** Scope of the claim shown for the agent (its latest held). */
  claim: string | null;
  lastAction: string;
  lastTs: string;
  branch: string | null;
  commits: number;
  /** agent.finished status (done | failed | stopped), null while it runs. */
  finishStatus: string | null;
  /** Fleet runs: the worker running the agent's session (its latest agent.placed); null in-process. */
  worker: string | null;
}

export interface TimelineView {
  /** The first step's start (so preparing the workspace does not squeeze the bars); `runStartMs` the run's. */
  startMs: number;
  runStartMs: number;
  endMs: number;
  /** One row per agent, by name: flat [offsetMs, durationMs, kind, ...] relative to `startMs`. */
  rows: Array<{ agent: string; segs: number[] }>;
  /** The view model's critical path (absolute ms), the same one `colony report` draws. */
  critical: CriticalPath;
}

export interface SeriesPoint {
  t: number;
  /**
   * Cumulative uncached input, cached input, cache writes, output and cost up to `t` (cost null:
   * nothing priced yet).
   */
  uncached: number;
  cached: number;
  cacheWrite: number;
  output: number;
  costUsd: number | null;
}

export interface ContextItem {
  seq: number;
  id: number;
  ts: string;
  author: string | null;
  kind: ContextKind;
  summary: string;
  scope: string[] | null;
}

export interface MessageItem {
  seq: number;
  id: number;
  ts: string;
  /** `user` for messages from outside the run (the dashboard, `colony send`). */
  from: string | null;
  to: string | null;
  channel: string | null;
  text: string;
  delivered: boolean;
}

export interface MergeItem {
  mr: number;
  agent: string | null;
  branch: string;
  note: string;
  status: MergeStatus;
  reason: string | null;
  files: string[];
  output: string | null;
  requestedAt: string;
  decidedAt: string | null;
}

export interface ClaimItem {
  claimId: number;
  agent: string;
  scope: string;
  summary: string;
  since: string;
}

export interface LimitHitItem {
  limit: string;
  value: number;
  used: number;
  agent: string | null;
  ts: string;
}

export interface CompactRunView {
  runId: string | null;
  status: string;
  reason: string | null;
  topology: string | null;
  goal: string | null;
  model: string | null;
  resultBranch: string | null;
  lastSeq: number;
  events: number;
  startedAt: string | null;
  wallClockMs: number;
  /** Run totals; `input` is uncached input. */
  tokens: UsageTotals;
  costUsd: number | null;
  modelCalls: number;
  toolCalls: number;
  verify: VerifyView | null;
  counts: Record<AgentState, number>;
  /** Most interesting first: failed, waiting, working…, then by name. */
  agents: AgentRow[];
  timeline: TimelineView;
  series: SeriesPoint[];
  /** The last MAX_FEED entries; `contextTotal` counts all. */
  context: ContextItem[];
  contextTotal: number;
  messages: MessageItem[];
  /** Newest first. */
  merges: MergeItem[];
  claims: ClaimItem[];
  limits: LimitRow[];
  limitsHit: LimitHitItem[];
  /** How agents' commands are contained (null before run.started); off is shown as a warning. */
  sandbox: SandboxView | null;
}
