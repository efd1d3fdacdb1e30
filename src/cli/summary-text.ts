import { terminalLine, terminalText } from '../core/terminal-text.js';
import { fleetTransportLine } from '../view/fleet-transport.js';
import { limitHitText } from '../view/limit-text.js';
import { sandboxLine } from '../view/sandbox.js';
import type { RunSummary, TokenAccount } from '../view/summary.js';

/** Agents listed by `show`; the rest (by tokens) are counted in one line. */
export const TOP_AGENTS = 20;

/**
 * The summary `colony run`, `show` and `resume` print. Its reason, commands and agent names may be
 * an agent's: printed with their control characters made visible (core/terminal-text.ts).
 */
export function formatSummary(s: RunSummary): string {
  const t = s.tokens;
  const cost = s.costUsd === null ? 'unpriced' : `$${s.costUsd.toFixed(4)}`;
  const lines = [
    `run ${s.runId}: ${s.status}${s.reason ? ` — ${s.reason}` : ''}`,
    `  wall-clock ${(s.wallClockMs / 1000).toFixed(1)} s · ${s.steps} steps · ${s.toolCalls} tool calls · ${s.agents} agent(s)`,
    `  tokens: ${t.input} input + ${t.cachedInput} cached input + ${t.cacheWrite} cache writes, ${t.output} output (${t.reasoning} reasoning) · cost ${cost}${s.unpricedCalls > 0 ? ` (${s.unpricedCalls} unpriced calls)` : ''}`,
  ];
  if (s.agents > 1)
    lines.push(
      `  team: CriticalSteps ${s.criticalSteps} · total steps ${s.totalSteps} · parallelism ${s.parallelism.toFixed(2)} · finish rate ${percent(s.finishRate)} (${s.agentsFinished}/${s.agents}) · coordination share ${percent(s.coordinationShareOfInput)} of input, ${percent(s.coordinationShareOfUncachedInput)} of uncached input`,
      '    (what these numbers mean: colony show --help)',
    );
  if (s.plannedCriticalSteps !== null)
    lines.push(
      `  plan: CriticalSteps ${s.plannedCriticalSteps} before the run (${s.plannedCriticalPath.join(' → ')}) · measured ${s.criticalSteps}`,
    );
  if (s.verify)
    lines.push(
      `  verify: ${s.verify.command} → ${s.verify.passed ? 'passed' : `failed (exit ${s.verify.exitCode})`}`,
    );
  if (s.acceptance)
    lines.push(
      `  acceptance: ${s.acceptance.passed ? 'passed' : 'failed'} after ${s.acceptance.round} fix round(s)`,
    );
  for (const hit of s.limitsHit) lines.push(`  ${limitHitText(hit)}`);
  if (s.sandbox) lines.push(`  ${sandboxLine(s.sandbox)}`);
  const fleet = fleetTransportLine(s.fleetTransport);
  if (fleet) lines.push(`  ${fleet}`);
  if (s.resultBranch)
    lines.push(`  result branch: ${s.resultBranch} (in your repository: git diff HEAD...${s.resultBranch})`);
  else if (s.status !== 'running')
    lines.push('  result branch: none (nothing landed on main: your repository is unchanged)');
  if (s.agents > 1) lines.push(...accountTable(s));
  return terminalText(lines.join('\n'));
}

/** Per-role then per-agent tokens (uncached input, cached input, output) and cost; top agents by tokens. */
function accountTable(s: RunSummary): string[] {
  const rows: string[][] = [['', 'steps', 'input', 'cached', 'output', 'cost']];
  const row = (label: string, a: TokenAccount) => [
    label,
    String(a.steps),
    String(a.input),
    String(a.cachedInput),
    String(a.output),
    a.costUsd === null ? 'unpriced' : `$${a.costUsd.toFixed(4)}`,
  ];
  for (const [role, a] of Object.entries(s.perRole)) rows.push(row(`role ${role} (${a.agents})`, a));
  const agents = Object.entries(s.perAgent).sort(
    ([an, a], [bn, b]) => tokensOf(b) - tokensOf(a) || an.localeCompare(bn),
  );
  const setupOf = agentSetupLabel(s.perAgent);
  // Made visible before the columns are measured.
  for (const [name, a] of agents.slice(0, TOP_AGENTS))
    rows.push(row(terminalLine(`${name} [${setupOf(a)}]`), a));
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const out = rows.map(
    (r) =>
      `    ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ')}`,
  );
  const more = agents.length - TOP_AGENTS;
  if (more > 0) out.push(`    … and ${more} more agent(s) (colony show RUN --json has them all)`);
  return ['  tokens by role and agent (top by tokens; input is uncached input):', ...out];
}

/**
 * An agent's role, and its model and step cap when the run's agents do not all share one (peers with
 * `--peer-models` / `--peer-max-steps`): `coder`, or `peer · openai-chat:gpt-4o · max 20 steps`.
 */
function agentSetupLabel(perAgent: RunSummary['perAgent']): (a: RunSummary['perAgent'][string]) => string {
  const all = Object.values(perAgent);
  const varies = (key: 'model' | 'maxSteps') => new Set(all.map((a) => a[key])).size > 1;
  if (!varies('model') && !varies('maxSteps')) return (a) => a.role;
  return (a) =>
    [
      a.role,
      a.model ?? 'model unknown',
      a.maxSteps === null ? 'step cap unknown' : `max ${a.maxSteps} steps`,
    ].join(' · ');
}

function tokensOf(a: TokenAccount): number {
  return a.input + a.cachedInput + a.output;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
