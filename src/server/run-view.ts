/**
 * The dashboard's view of a run: a plain JSON snapshot of a RunState, sized for the browser. The
 * timeline is aggregated (adjacent segments closer than one pixel of a ~2,000 px wide chart merge),
 * series are downsampled to ≤ 240 points and feeds are capped, so a 1,000-agent / 100k-event run
 * stays a few hundred KB.
 */
import type { UsageTotals } from '../core/events.js';
import type {
  AgentActivity,
  ContextItem,
  MergeItem,
  MessageItem,
  RunState,
  SeriesPoint,
} from './run-state.js';

export interface AgentRow {
  name: string;
  profile: string;
  state: AgentActivity;
  since: string;
  steps: number;
  toolCalls: number;
  costUsd: number;
  tokens: UsageTotals;
  claim: string | null;
  lastAction: string;
  lastTs: string;
  branch: string | null;
  commits: number;
}

export interface TimelineView {
  startMs: number;
  endMs: number;
  /** One row per agent (same order as `agents`): flat [offsetMs, durationMs, kind, ...]. */
  rows: Array<{ agent: string; segs: number[] }>;
  /** Agent whose last step ends last: its chain of steps bounds the run's makespan. */
  critical: { agent: string; steps: number; busyMs: number } | null;
}

export interface LimitView {
  name: string;
  limit: number | null;
  used: number;
  unit: string;
  hit: boolean;
}

export interface RunView {
  runId: string;
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
  tokens: UsageTotals;
  costUsd: number | null;
  modelCalls: number;
  toolCalls: number;
  verify: { command: string; passed: boolean; exitCode: number | null; output: string } | null;
  counts: Record<AgentActivity, number>;
  agents: AgentRow[];
  timeline: TimelineView;
  series: SeriesPoint[];
  context: ContextItem[];
  contextTotal: number;
  messages: MessageItem[];
  merges: MergeItem[];
  claims: Array<{ claimId: number; agent: string; scope: string; summary: string; since: string }>;
  limits: LimitView[];
  limitsHit: RunState['limitsHit'];
}

export const MAX_FEED = 1000;
const TIMELINE_PX = 2000;
const SERIES_POINTS = 240;

const STATE_ORDER: Record<AgentActivity, number> = {
  failed: 0,
  waiting: 1,
  tool: 2,
  thinking: 3,
  idle: 4,
  done: 5,
};

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Merges segments closer than `resolution` ms (the longer kind wins), flattened relative to `origin`. */
export function aggregateSegments(
  segs: ReadonlyArray<readonly [number, number, number]>,
  origin: number,
  resolution: number,
): number[] {
  const out: number[] = [];
  let cur: [number, number, number] | null = null;
  let curKindMs = 0;
  for (const [s, e, k] of segs) {
    if (cur && s - cur[1] <= resolution && e - cur[0] <= resolution * 4) {
      // Inside one pixel-ish bucket: extend, keep the kind that covers most time.
      if (e - s > curKindMs) {
        cur[2] = k;
        curKindMs = e - s;
      }
      cur[1] = Math.max(cur[1], e);
      continue;
    }
    if (cur) out.push(cur[0] - origin, Math.max(1, cur[1] - cur[0]), cur[2]);
    cur = [s, e, k];
    curKindMs = e - s;
  }
  if (cur) out.push(cur[0] - origin, Math.max(1, cur[1] - cur[0]), cur[2]);
  return out;
}

function downsample(state: RunState): SeriesPoint[] {
  const u = state.usage;
  if (u.length === 0) return [];
  const step = Math.max(1, Math.ceil(u.length / SERIES_POINTS));
  const out: SeriesPoint[] = [];
  for (let i = step - 1; i < u.length + step - 1; i += step) {
    const p = u[Math.min(i, u.length - 1)];
    if (p) out.push({ t: p[0], uncached: p[1], cached: p[2], output: p[3], costUsd: p[4] });
  }
  return out;
}

function limits(state: RunState, costUsd: number, wallClockMs: number): LimitView[] {
  const c = state.config;
  const hit = new Set(state.limitsHit.map((l) => l.limit));
  const maxSteps = num(c.maxSteps);
  const maxAgentSteps = Math.max(0, ...[...state.agents.values()].map((a) => a.steps));
  const deadline = typeof c.deadlineAt === 'string' ? Date.parse(c.deadlineAt) : Number.NaN;
  const out: LimitView[] = [
    { name: 'budget_usd', limit: num(c.budgetUsd), used: costUsd, unit: 'USD', hit: hit.has('budget_usd') },
    {
      name: 'budget_tokens',
      limit: num(c.budgetTokens),
      used: state.tokens.input + state.tokens.output,
      unit: 'tokens',
      hit: hit.has('budget_tokens'),
    },
    {
      name: 'max_steps (per agent)',
      limit: maxSteps,
      used: maxAgentSteps,
      unit: 'steps',
      hit: hit.has('max_steps'),
    },
    {
      name: 'concurrency',
      limit: num(c.concurrency),
      used: [...state.agents.values()].filter((a) => a.finishedMs === null && a.state !== 'idle').length,
      unit: 'agents',
      hit: false,
    },
  ];
  if (Number.isFinite(deadline) && state.startMs !== null)
    out.push({
      name: 'deadline',
      limit: Math.round((deadline - state.startMs) / 1000),
      used: Math.round(wallClockMs / 1000),
      unit: 's',
      hit: hit.has('deadline'),
    });
  for (const l of state.limitsHit)
    if (!out.some((o) => o.name.startsWith(l.limit)))
      out.push({ name: l.limit, limit: l.value, used: l.used, unit: '', hit: true });
  return out;
}

export function snapshot(state: RunState, nowMs = Date.now()): RunView {
  const start = state.startMs ?? nowMs;
  const end = state.status === 'running' ? Math.max(nowMs, state.endMs ?? nowMs) : (state.endMs ?? nowMs);
  const wallClockMs = state.startMs === null ? 0 : end - start;
  const counts: Record<AgentActivity, number> = {
    thinking: 0,
    tool: 0,
    waiting: 0,
    idle: 0,
    done: 0,
    failed: 0,
  };
  const agents = [...state.agents.values()];
  const rows: AgentRow[] = agents.map((a) => {
    const activity = state.activityOf(a);
    counts[activity] += 1;
    return {
      name: a.name,
      profile: a.profile,
      state: activity,
      since: iso(a.since),
      steps: a.steps,
      toolCalls: a.toolCalls,
      costUsd: Math.round(a.costUsd * 1e6) / 1e6,
      tokens: a.tokens,
      claim: a.claim,
      lastAction: a.lastAction,
      lastTs: iso(a.lastTs),
      branch: a.branch,
      commits: a.commits.length,
    };
  });
  // Most interesting first: failed, waiting, working…; then by name with numeric order.
  rows.sort(
    (x, y) =>
      STATE_ORDER[x.state] - STATE_ORDER[y.state] || x.name.localeCompare(y.name, 'en', { numeric: true }),
  );
  const resolution = Math.max(1, (end - start) / TIMELINE_PX);
  const byName = new Map(agents.map((a) => [a.name, a]));
  const timelineRows = [...agents]
    .sort((x, y) => x.name.localeCompare(y.name, 'en', { numeric: true }))
    .map((a) => ({ agent: a.name, segs: aggregateSegments(a.segs, start, resolution) }));
  let critical: TimelineView['critical'] = null;
  for (const a of byName.values()) {
    const last = a.segs[a.segs.length - 1];
    if (!last) continue;
    const busyMs = a.segs.reduce((sum, s) => sum + (s[1] - s[0]), 0);
    if (!critical || last[1] > (byName.get(critical.agent)?.segs.at(-1)?.[1] ?? 0))
      critical = { agent: a.name, steps: a.steps, busyMs };
  }
  const costUsd = state.priced ? Math.round(state.costUsd * 1e6) / 1e6 : null;
  return {
    runId: state.runId,
    status: state.status,
    reason: state.reason,
    topology: state.topology,
    goal: state.goal,
    model: state.model,
    resultBranch: state.resultBranch,
    lastSeq: state.lastSeq,
    events: state.events,
    startedAt: state.startMs === null ? null : iso(state.startMs),
    wallClockMs,
    tokens: { ...state.tokens },
    costUsd,
    modelCalls: state.modelCalls,
    toolCalls: state.toolCalls,
    verify: state.verify,
    counts,
    agents: rows,
    timeline: { startMs: start, endMs: end, rows: timelineRows, critical },
    series: downsample(state),
    context: state.context.slice(-MAX_FEED),
    contextTotal: state.context.length,
    messages: state.messages.slice(-MAX_FEED),
    merges: [...state.merges.values()].reverse(),
    claims: [...state.claims.values()],
    limits: limits(state, state.costUsd, wallClockMs),
    limitsHit: state.limitsHit,
  };
}
