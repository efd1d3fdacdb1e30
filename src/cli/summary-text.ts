import type { RunSummary } from '../swarm/summary.js';

export function formatSummary(s: RunSummary): string {
  const t = s.tokens;
  const cost = s.costUsd === null ? 'unpriced' : `$${s.costUsd.toFixed(4)}`;
  const lines = [
    `run ${s.runId}: ${s.status}${s.reason ? ` — ${s.reason}` : ''}`,
    `  wall-clock ${(s.wallClockMs / 1000).toFixed(1)} s · ${s.steps} steps · ${s.toolCalls} tool calls · ${s.agents} agent(s)`,
    `  tokens: ${t.input} input + ${t.cachedInput} cached input + ${t.cacheWrite} cache writes, ${t.output} output (${t.reasoning} reasoning) · cost ${cost}${s.unpricedCalls > 0 ? ` (${s.unpricedCalls} unpriced calls)` : ''}`,
  ];
  if (s.verify)
    lines.push(
      `  verify: ${s.verify.command} → ${s.verify.passed ? 'passed' : `failed (exit ${s.verify.exitCode})`}`,
    );
  for (const hit of s.limitsHit) lines.push(`  limit hit: ${hit.limit} = ${hit.value} (used ${hit.used})`);
  if (s.resultBranch)
    lines.push(`  result branch: ${s.resultBranch} (in your repository: git diff HEAD...${s.resultBranch})`);
  return lines.join('\n');
}
