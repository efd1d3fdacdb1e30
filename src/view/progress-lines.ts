/**
 * The terminal progress block of a running run, as plain lines (the CLI redraws them in place).
 * A pure function of the view model so it is testable without a terminal.
 */
import { formatCost, formatCount, formatDuration } from './format.js';
import { AGENT_STATES, type AgentState, type RunView } from './types.js';

export interface ProgressOptions {
  /** Terminal width: lines are cut to it. */
  columns?: number;
  /** At most this many agent rows (the busiest first); the rest are counted. */
  maxAgents?: number;
}

const ORDER: Record<AgentState, number> = {
  tool: 0,
  thinking: 1,
  waiting: 2,
  idle: 3,
  queued: 4,
  failed: 5,
  stopped: 6,
  done: 7,
};

export function progressLines(view: RunView, options: ProgressOptions = {}): string[] {
  const columns = Math.max(20, options.columns ?? 100);
  const maxAgents = options.maxAgents ?? 8;
  const t = view.totals;
  const s = view.byState;
  const states = AGENT_STATES.filter((k) => s[k] > 0)
    .map((k) => `${s[k]} ${k}`)
    .join(' · ');
  const merges =
    t.merges.requested > 0
      ? ` · merges ${t.merges.landed} landed, ${t.merges.rejected} rejected, ${t.merges.pending} queued`
      : '';
  const lines = [
    `${view.status} · ${formatDuration(view.wallClockMs)} · ${view.agents.length} agent(s): ${states || 'starting'}`,
    `steps ${t.steps} · tools ${t.toolCalls}${merges} · cost ${formatCost(t.costUsd, t.modelCalls)} · tokens ${formatCount(t.tokens.uncached)} in + ${formatCount(t.tokens.cached)} cached + ${formatCount(t.tokens.cacheWrite)} cache writes + ${formatCount(t.tokens.output)} out`,
  ];
  const agents = [...view.agents].sort((a, b) => ORDER[a.state] - ORDER[b.state]);
  const width = Math.max(...agents.slice(0, maxAgents).map((a) => a.name.length), 4);
  for (const a of agents.slice(0, maxAgents)) {
    const claim = a.claim ? ` [${a.claim.scope}]` : '';
    const worker = a.worker ? ` on ${a.worker}` : '';
    lines.push(
      `  ${a.name.padEnd(width)} ${a.state.padEnd(8)} ${String(a.steps).padStart(3)} steps${worker}${claim}  ${a.lastAction ?? ''}`,
    );
  }
  if (agents.length > maxAgents) lines.push(`  … ${agents.length - maxAgents} more agent(s)`);
  return lines.map((line) => (line.length > columns ? `${line.slice(0, columns - 1)}…` : line));
}
