/** `colony plan`'s text: the graph's work and span, one table row per team size, the recommendation. */
import { formatDuration, formatUsd } from '../../view/format.js';
import type { PlanReport } from './plan.js';

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  '));
}

export function formatPlan(report: PlanReport): string {
  const d = formatDuration;
  const head = [
    `plan for ${report.runId} (${report.source}: ${report.tasks} tasks; measured ${d(report.measured.wallClockMs)} with ${report.measured.agents} agents, ${formatUsd(report.measured.costUsd)})`,
    `work ${d(report.workMs)} (${report.workSteps} steps)  span ${d(report.spanMs)} (${report.spanSteps} steps)  parallelism ${report.parallelism.toFixed(2)}  conflicting pairs ${report.conflictPairs}`,
    `critical path: ${report.criticalPath.join(' → ') || '—'}`,
    `Monte-Carlo: ${report.options.samples} samples, seed ${report.options.seed}, lognormal sigma ${report.options.sigma}`,
    '',
  ];
  const rows = [
    [
      'p',
      'brent low',
      'brent high',
      'schedule',
      'conflict +',
      'p10',
      'p50',
      'p90',
      'cost p10',
      'cost p50',
      'cost p90',
    ],
    ...report.rows.map((r) => [
      String(r.p),
      d(r.brentLowerMs),
      d(r.brentUpperMs),
      d(r.scheduleMs),
      d(r.conflictPenaltyMs),
      d(r.makespanMs.p10),
      d(r.makespanMs.p50),
      d(r.makespanMs.p90),
      formatUsd(r.costUsd?.p10 ?? null),
      formatUsd(r.costUsd?.p50 ?? null),
      formatUsd(r.costUsd?.p90 ?? null),
    ]),
  ];
  const rec = report.recommendation;
  return [
    ...head,
    ...table(rows),
    '',
    rec ? `recommended team size: ${rec.p} (${rec.rule})` : 'recommended team size: — (no tasks)',
  ].join('\n');
}
