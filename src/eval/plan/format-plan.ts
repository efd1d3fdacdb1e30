/** `colony plan`'s text: the graph's work and span, one table row per team size, the recommendation. */
import { formatDuration, formatUsd } from '../../view/format.js';
import type { PlanReport } from './plan.js';

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  '));
}

function recorded(report: PlanReport): string {
  const m = report.measured;
  if (m.wallClockMs === null) return `estimates, no run yet; cost ${formatUsd(m.costUsd)}`;
  const tasks = m.activeMs === null ? '' : ` (tasks ${formatDuration(m.activeMs)})`;
  return `measured ${formatDuration(m.wallClockMs)}${tasks} with team size ${m.teamSize} of ${m.agents} agents, ${formatUsd(m.costUsd)}`;
}

/** The table of team sizes, as text cells: shared by the text and the HTML page. */
export const PLAN_COLUMNS = [
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
];

export function planRows(report: PlanReport): string[][] {
  const d = formatDuration;
  return report.rows.map((r) => [
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
  ]);
}

export function formatPlan(report: PlanReport): string {
  const d = formatDuration;
  const head = [
    `plan for ${report.runId} (${report.source}: ${report.tasks} tasks; ${recorded(report)})`,
    `work ${d(report.workMs)} (${report.workSteps} steps)  span ${d(report.spanMs)} (${report.spanSteps} steps)  parallelism ${report.parallelism.toFixed(2)}  conflicting pairs ${report.conflictPairs}`,
    `critical path: ${report.criticalPath.join(' → ') || '—'}`,
    `Monte-Carlo: ${report.options.samples} samples, seed ${report.options.seed}, lognormal sigma ${report.options.sigma}`,
    '',
  ];
  const rows = [PLAN_COLUMNS, ...planRows(report)];
  const rec = report.recommendation;
  return [
    ...head,
    ...table(rows),
    '',
    rec ? `recommended team size: ${rec.p} (${rec.rule})` : 'recommended team size: — (no tasks)',
  ].join('\n');
}
