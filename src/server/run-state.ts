/**
 * The live state of one run, folded incrementally from its events (apply one event at a time), so
 * the server follows a 100k-event run without re-reading it. `snapshot` turns it into the plain
 * view the dashboard draws. Everything here is derived from the event log only.
 */
import type { ContextKind, StoredEvent, UsageTotals } from '../core/events.js';

export type AgentActivity = 'thinking' | 'tool' | 'waiting' | 'idle' | 'done' | 'failed';

/** Timeline segment kinds (numeric so a 1,000-agent timeline stays small on the wire). */
export const SEG_MODEL = 0;
export const SEG_TOOL = 1;
export const SEG_WAIT = 2;

export interface AgentState {
  name: string;
  profile: string;
  model: string;
  state: AgentActivity;
  /** ms since epoch of the last state change. */
  since: number;
  steps: number;
  toolCalls: number;
  tokens: UsageTotals;
  costUsd: number;
  claim: string | null;
  lastAction: string;
  lastTs: number;
  startedMs: number;
  finishedMs: number | null;
  stopReason: string | null;
  /** agent.finished status (done | failed | stopped); the activity maps stopped to failed like src/view. */
  finishStatus: string | null;
  branch: string | null;
  commits: Array<{ commit: string; branch: string; files: number; ts: string }>;
  /** Timeline: [startMs, endMs, kind] with absolute ms. */
  segs: Array<[number, number, number]>;
  /** Open tool calls by call id → start ms and name. */
  openTools: Map<string, { at: number; name: string }>;
  lastMark: number;
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
  status: 'queued' | 'awaiting_approval' | 'approved' | 'landed' | 'rejected';
  reason: string | null;
  files: string[];
  output: string | null;
  requestedAt: string;
  decidedAt: string | null;
}

export interface SeriesPoint {
  t: number;
  uncached: number;
  cached: number;
  output: number;
  costUsd: number;
}

/** Tools during which an agent waits on others rather than works. */
const WAITING_TOOLS = new Set(['message_read', 'merge_request', 'sync', 'wait']);

function emptyTokens(): UsageTotals {
  return { input: 0, cachedInput: 0, cacheWrite: 0, output: 0, reasoning: 0 };
}

function oneLine(text: string, max = 140): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A short description of a tool call from its name and raw arguments. */
export function describeToolCall(name: string, args: string): string {
  try {
    const parsed = JSON.parse(args) as Record<string, unknown>;
    const key = ['path', 'command', 'scope', 'summary', 'pattern', 'to', 'channel', 'note', 'text'].find(
      (k) => typeof parsed[k] === 'string',
    );
    return key ? `${name} ${oneLine(String(parsed[key]), 100)}` : name;
  } catch {
    return name;
  }
}

export class RunState {
  readonly runId: string;
  topology: string | null = null;
  goal: string | null = null;
  model: string | null = null;
  config: Record<string, unknown> = {};
  status = 'running';
  reason: string | null = null;
  resultBranch: string | null = null;
  startMs: number | null = null;
  endMs: number | null = null;
  lastSeq = 0;
  events = 0;
  tokens = emptyTokens();
  costUsd = 0;
  priced = false;
  modelCalls = 0;
  toolCalls = 0;
  verify: { command: string; passed: boolean; exitCode: number | null; output: string } | null = null;
  limitsHit: Array<{ limit: string; value: number; used: number; agent: string | null; ts: string }> = [];
  readonly agents = new Map<string, AgentState>();
  readonly context: ContextItem[] = [];
  readonly messages: MessageItem[] = [];
  readonly merges = new Map<number, MergeItem>();
  /** Held claims by claim id. */
  readonly claims = new Map<
    number,
    { claimId: number; agent: string; scope: string; summary: string; since: string }
  >();
  /** Cumulative usage at every model response: [ms, uncached, cached, output, cost]. */
  readonly usage: Array<[number, number, number, number, number]> = [];

  constructor(runId: string) {
    this.runId = runId;
  }

  private agent(name: string, at: number): AgentState {
    let a = this.agents.get(name);
    if (!a) {
      a = {
        name,
        profile: '',
        model: '',
        state: 'idle',
        since: at,
        steps: 0,
        toolCalls: 0,
        tokens: emptyTokens(),
        costUsd: 0,
        claim: null,
        lastAction: '',
        lastTs: at,
        startedMs: at,
        finishedMs: null,
        stopReason: null,
        finishStatus: null,
        branch: null,
        commits: [],
        segs: [],
        openTools: new Map(),
        lastMark: at,
      };
      this.agents.set(name, a);
    }
    return a;
  }

  private setState(a: AgentState, state: AgentActivity, at: number): void {
    if (a.state !== state) {
      a.state = state;
      a.since = at;
    }
  }

  apply(event: StoredEvent): void {
    const at = Date.parse(event.ts);
    this.lastSeq = event.seq;
    this.events += 1;
    this.startMs ??= at;
    this.endMs = at;
    const a = event.agent !== null ? this.agent(event.agent, at) : null;
    if (a) a.lastTs = at;
    switch (event.kind) {
      case 'run.started': {
        const d = (event as StoredEvent<'run.started'>).data;
        this.topology = d.topology;
        this.goal = d.goal;
        this.model = d.model;
        this.config = d.config;
        break;
      }
      case 'run.finished': {
        const d = (event as StoredEvent<'run.finished'>).data;
        this.status = d.status;
        this.reason = d.reason;
        this.resultBranch = d.resultBranch;
        break;
      }
      case 'run.resumed':
        this.status = 'running';
        break;
      case 'agent.started': {
        if (!a) break;
        const d = (event as StoredEvent<'agent.started'>).data;
        a.profile = d.profile;
        a.model = d.model;
        a.startedMs = at;
        a.lastMark = at;
        a.lastAction = 'started';
        this.setState(a, 'thinking', at);
        break;
      }
      case 'agent.finished': {
        if (!a) break;
        const d = (event as StoredEvent<'agent.finished'>).data;
        a.finishedMs = at;
        a.stopReason = d.stopReason;
        a.finishStatus = d.status;
        a.lastAction = `finished (${d.status}): ${oneLine(d.reason || d.stopReason, 100)}`;
        a.claim = null;
        this.setState(a, d.status === 'done' ? 'done' : 'failed', at);
        break;
      }
      case 'model.response': {
        const d = (event as StoredEvent<'model.response'>).data;
        const u = d.turn.usage;
        const cached = u.cachedInput ?? 0;
        this.modelCalls += 1;
        this.tokens.input += u.input;
        this.tokens.cachedInput += cached;
        this.tokens.cacheWrite += u.cacheWrite ?? 0;
        this.tokens.output += u.output;
        this.tokens.reasoning += u.reasoning ?? 0;
        if (d.turn.costUsd !== null) {
          this.costUsd += d.turn.costUsd;
          this.priced = true;
        }
        this.usage.push([
          at,
          this.tokens.input - this.tokens.cachedInput,
          this.tokens.cachedInput,
          this.tokens.output,
          this.costUsd,
        ]);
        if (!a) break;
        a.steps += 1;
        a.tokens.input += u.input;
        a.tokens.cachedInput += cached;
        a.tokens.output += u.output;
        a.costUsd += d.turn.costUsd ?? 0;
        a.segs.push([Math.max(a.lastMark, at - d.latencyMs), at, SEG_MODEL]);
        a.lastMark = at;
        const calls = d.turn.toolCalls;
        a.lastAction =
          calls.length > 0
            ? `calls ${calls.map((c) => c.name).join(', ')}`
            : `says ${oneLine(d.turn.text || '(nothing)', 100)}`;
        this.setState(a, calls.length > 0 ? 'tool' : 'thinking', at);
        break;
      }
      case 'model.retry':
        if (a) this.setState(a, 'waiting', at);
        break;
      case 'model.error':
        if (a)
          a.lastAction = `model error: ${oneLine((event as StoredEvent<'model.error'>).data.message, 100)}`;
        break;
      case 'tool.started': {
        if (!a) break;
        const d = (event as StoredEvent<'tool.started'>).data;
        a.openTools.set(d.callId, { at, name: d.name });
        a.lastAction = describeToolCall(d.name, d.arguments);
        this.setState(a, WAITING_TOOLS.has(d.name) ? 'waiting' : 'tool', at);
        break;
      }
      case 'tool.finished': {
        this.toolCalls += 1;
        if (!a) break;
        const d = (event as StoredEvent<'tool.finished'>).data;
        const open = a.openTools.get(d.callId);
        a.openTools.delete(d.callId);
        const start = open?.at ?? Math.max(a.lastMark, at - d.durationMs);
        a.segs.push([start, at, WAITING_TOOLS.has(d.name) ? SEG_WAIT : SEG_TOOL]);
        a.lastMark = at;
        a.toolCalls += 1;
        if (d.isError) a.lastAction = `${d.name} failed: ${oneLine(d.summary, 90)}`;
        if (a.openTools.size === 0 && a.finishedMs === null) this.setState(a, 'thinking', at);
        break;
      }
      case 'limit.hit': {
        const d = (event as StoredEvent<'limit.hit'>).data;
        this.limitsHit.push({ ...d, agent: event.agent, ts: event.ts });
        break;
      }
      case 'verify.finished': {
        const d = (event as StoredEvent<'verify.finished'>).data;
        if (event.agent === null)
          this.verify = { command: d.command, passed: d.passed, exitCode: d.exitCode, output: d.output };
        break;
      }
      case 'workspace.ready':
        if (a) a.branch = (event as StoredEvent<'workspace.ready'>).data.branch;
        break;
      case 'commit.created': {
        const d = (event as StoredEvent<'commit.created'>).data;
        if (a) {
          a.branch = d.branch;
          a.commits.push({ commit: d.commit, branch: d.branch, files: d.files, ts: event.ts });
        }
        break;
      }
      case 'context.posted': {
        const d = (event as StoredEvent<'context.posted'>).data;
        this.context.push({
          seq: event.seq,
          id: d.id,
          ts: event.ts,
          author: event.agent,
          kind: d.kind,
          summary: d.summary,
          scope: d.scope,
        });
        if (a) a.lastAction = `posted ${d.kind}: ${oneLine(d.summary, 90)}`;
        break;
      }
      case 'message.sent': {
        const d = (event as StoredEvent<'message.sent'>).data;
        this.messages.push({
          seq: event.seq,
          id: d.id,
          ts: event.ts,
          from: event.agent ?? 'user',
          to: d.to,
          channel: d.channel,
          text: d.text,
          delivered: false,
        });
        break;
      }
      case 'message.delivered': {
        const d = (event as StoredEvent<'message.delivered'>).data;
        const ids = new Set(d.ids);
        // Recent messages are the likely ones; scan from the end and stop early.
        for (let i = this.messages.length - 1, left = ids.size; i >= 0 && left > 0; i -= 1) {
          const m = this.messages[i];
          if (m && ids.has(m.id)) {
            m.delivered = true;
            left -= 1;
          }
        }
        if (a && d.via === 'interrupt')
          a.lastAction = `interrupted by ${d.messages.map((m) => m.from).join(', ')}`;
        break;
      }
      case 'claim.granted': {
        const d = (event as StoredEvent<'claim.granted'>).data;
        this.claims.set(d.claimId, {
          claimId: d.claimId,
          agent: event.agent ?? '',
          scope: d.scope,
          summary: d.summary,
          since: event.ts,
        });
        if (a) a.claim = d.scope;
        break;
      }
      case 'claim.released':
      case 'claim.expired': {
        const d = (event as StoredEvent<'claim.released'>).data;
        const held = this.claims.get(d.claimId);
        this.claims.delete(d.claimId);
        const holder = held ? this.agents.get(held.agent) : a;
        if (holder && holder.claim === d.scope) {
          const other = [...this.claims.values()].reverse().find((c) => c.agent === holder.name);
          holder.claim = other?.scope ?? null;
        }
        break;
      }
      case 'claim.conflict':
        if (a)
          a.lastAction = `claim conflict on ${(event as StoredEvent<'claim.conflict'>).data.scope} (held by ${(event as StoredEvent<'claim.conflict'>).data.holder})`;
        break;
      case 'merge.requested': {
        const d = (event as StoredEvent<'merge.requested'>).data;
        this.merges.set(d.mr, {
          mr: d.mr,
          agent: event.agent,
          branch: d.branch,
          note: d.note,
          status: 'queued',
          reason: null,
          files: [],
          output: null,
          requestedAt: event.ts,
          decidedAt: null,
        });
        break;
      }
      case 'merge.awaiting_approval':
      case 'merge.approved':
      case 'merge.landed':
      case 'merge.rejected': {
        const d = event.data as { mr: number };
        const m = this.merges.get(d.mr);
        if (!m) break;
        if (event.kind === 'merge.awaiting_approval') m.status = 'awaiting_approval';
        else if (event.kind === 'merge.approved') m.status = 'approved';
        else if (event.kind === 'merge.landed') {
          m.status = 'landed';
          m.decidedAt = event.ts;
        } else {
          const r = (event as StoredEvent<'merge.rejected'>).data;
          m.status = 'rejected';
          m.reason = r.reason;
          m.files = r.files;
          m.output = r.output.slice(0, 4000);
          m.decidedAt = event.ts;
        }
        break;
      }
      default:
        break;
    }
  }

  /** Agent activity as shown: an unfinished agent of a run that is over is idle. */
  activityOf(a: AgentState): AgentActivity {
    if (a.finishedMs !== null || this.status === 'running') return a.state;
    return 'idle';
  }
}
