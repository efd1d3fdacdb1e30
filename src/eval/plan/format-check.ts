/** `colony plan --check`'s text: predicted against measured makespan and cost, with the errors. */
import { formatDuration, formatUsd } from '../../view/format.js';
import type { CheckedNumber, CheckReport } from './check.js';
import type { EvalCheckSummary } from './check-eval.js';

export function percent(rel: number | null): string {
  if (rel === null) return '—';
  return `${rel >= 0 ? '+' : ''}${(rel * 100).toFixed(1)}%`;
}

function line(label: string, c: CheckedNumber, fmt: (v: number) => string): string {
  const measured = c.measured === null ? '— (not recorded)' : fmt(c.measured);
  const error =
    c.error === null
      ? ''
      : `  error ${c.error >= 0 ? '+' : '-'}${fmt(Math.abs(c.error))} (${percent(c.relError)})`;
  const band = c.inBand === null ? '' : c.inBand ? '  inside p10–p90' : '  OUTSIDE p10–p90';
  return `${label}: predicted ${fmt(c.predicted)} (p10 ${fmt(c.band.p10)} – p90 ${fmt(c.band.p90)})  measured ${measured}${error}${band}`;
}

export function formatCheck(r: CheckReport): string {
  const from =
    r.fromRunId === r.runId
      ? `from its own task graph (${r.source}, ${r.tasks} tasks)`
      : `from run ${r.fromRunId}'s task graph (${r.source}, ${r.tasks} tasks${r.sameGoal ? ', same goal' : ', A DIFFERENT GOAL'})`;
  return [
    `check of ${r.runId} at its team size ${r.p}, ${from}`,
    `Monte-Carlo: ${r.options.samples} samples, seed ${r.options.seed}, lognormal sigma ${r.options.sigma}; overhead outside the tasks ${formatDuration(r.overheadMs)}`,
    `replay (list schedule of the recorded durations + overhead): ${formatDuration(r.scheduleMs)} (${percent(r.scheduleRelError)})`,
    line('makespan', r.makespanMs, formatDuration),
    r.costUsd
      ? line('cost', r.costUsd, (v) => formatUsd(v))
      : 'cost: — (the predicting run recorded no cost)',
  ].join('\n');
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  '));
}

const abs = (v: number | null): string => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
const share = (v: number | null): string => (v === null ? '—' : `${Math.round(v * 100)}%`);

export function formatEvalCheck(s: EvalCheckSummary): string {
  const failures = s.rows.filter((r) => !r.result.ok);
  const rows = [
    [
      'kind',
      'arm',
      'checks',
      'makespan |err| p50',
      'max',
      'bias',
      'in p10–p90',
      'replay |err| p50',
      'max',
      'cost |err| p50',
      'max',
      'bias',
      'in p10–p90',
    ],
    ...s.groups.map((g) => [
      g.kind,
      g.arm === '*' ? 'all' : g.arm,
      g.failed > 0 ? `${g.checks - g.failed}/${g.checks}` : String(g.checks),
      abs(g.makespan.medianAbsRel),
      abs(g.makespan.maxAbsRel),
      percent(g.makespan.medianRel),
      share(g.makespan.coverage),
      abs(g.replay.medianAbsRel),
      abs(g.replay.maxAbsRel),
      abs(g.cost.medianAbsRel),
      abs(g.cost.maxAbsRel),
      percent(g.cost.medianRel),
      share(g.cost.coverage),
    ]),
  ];
  return [
    `plan check of ${s.dir}: ${s.rows.filter((r) => r.kind === 'self').length} runs; baseline ${s.baseline ?? '— (no from-baseline checks)'}`,
    'self: each run from its own task graph; from-baseline: each team run from the baseline run of its task and trial',
    'makespan: the Monte-Carlo p50 against the wall clock; replay: the list schedule of the recorded durations',
    '',
    ...table(rows),
    ...(failures.length > 0
      ? [
          '',
          'not checked:',
          ...failures.map(
            (r) => `  ${r.kind} ${r.arm} ${r.task} #${r.trial}: ${r.result.ok ? '' : r.result.error}`,
          ),
        ]
      : []),
  ].join('\n');
}
