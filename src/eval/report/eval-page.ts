/**
 * The self-contained HTML page of `colony eval report`: inline CSS and inline SVG, no script and no
 * external reference of any kind, so it opens offline and can be mailed as one file.
 */

import { esc, facts, PAGE_CSS, section, table } from '../../report/html.js';
import { formatCount, formatDuration, formatUsd } from '../../view/format.js';
import { renderCostParetoChart } from './cost-chart.js';
import { pct, pp, ppRange, pValue, times } from './format.js';
import { howToRead } from './how-to-read.js';
import { renderPassRateChart } from './pass-rate-chart.js';
import { armLabel, labelOf } from './simulated.js';
import { renderSolvedChart } from './solved-chart.js';
import type { ArmSummary, Comparison, EvalSummary } from './summary-types.js';
import { renderWinLossChart } from './win-loss-chart.js';

const CSS = `${PAGE_CSS}h3{font-size:14px;margin:12px 0 6px}
.chart{overflow-x:auto}.chart svg{max-width:none;height:auto}
.answer li{margin:4px 0}.sig{color:#1a7f37;font-weight:600}.loss{color:#b42318;font-weight:600}
.warn{background:#fff8e6;border-color:#f0d48a}
`;

const dur = (ms: number | null) => (ms === null ? '—' : formatDuration(ms));

const range = (ci: { lo: number; hi: number } | null) =>
  ci === null ? '' : ` (${pct(ci.lo)}–${pct(ci.hi)})`;

function budgetText(b: { usd?: number; tokens?: number }): string {
  const parts = [
    b.usd !== undefined ? formatUsd(b.usd) : null,
    b.tokens !== undefined ? `${formatCount(b.tokens)} tokens` : null,
  ].filter((x) => x !== null);
  return parts.length > 0 ? parts.join(' and ') : 'none';
}

function costPerSuccessText(a: ArmSummary): string {
  if (a.costPerSuccessUsd === null) return 'no success';
  const ci = a.costPerSuccessCi;
  if (!ci) return formatUsd(a.costPerSuccessUsd);
  return `${formatUsd(a.costPerSuccessUsd)} (${formatUsd(ci.lo)}–${ci.hi === null ? 'unbounded' : formatUsd(ci.hi)})`;
}

function armTable(a: ArmSummary, confidence: number): string {
  const level = `${Math.round(confidence * 100)}%`;
  const config = Object.entries(a.config)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
  const rows: [string, string][] = [
    ['topology · agents', esc(`${a.topology} · ${a.size}${a.solo ? ' (solo baseline)' : ''}`)],
    ['configuration', esc(config || '—')],
    [
      'trials',
      esc(
        `${a.trials} graded (${a.passes} passed, ${a.timeouts} timed out) on ${a.tasks} tasks in ${a.repos} repositories; ${a.infraErrors} infra errors left out`,
      ),
    ],
    [
      'pass rate',
      esc(
        `${pct(a.passRate)} — ${level} interval ${pct(a.interval?.lo ?? null)} to ${pct(a.interval?.hi ?? null)} (${a.interval?.method ?? '—'})`,
      ),
    ],
    [
      'Wilson · clustered bootstrap',
      esc(
        `${pct(a.wilson?.lo ?? null)}–${pct(a.wilson?.hi ?? null)} · ${pct(a.bootstrap?.lo ?? null)}–${pct(a.bootstrap?.hi ?? null)}`,
      ),
    ],
    [
      'pass@k · pass^k',
      esc(
        a.passAtK
          .map(
            (r) =>
              `k=${r.k}: ${pct(r.passAtK)}${range(r.passAtKCi)} · ${pct(r.passHatK)}${range(r.passHatKCi)}`,
          )
          .join('; ') || '—',
      ),
    ],
    ['mean score (share of graded tests)', esc(`${pct(a.meanScore)}${range(a.scoreCi)}`)],
    [
      'cost: total · a trial · a success',
      esc(
        `${formatUsd(a.totalCostUsd)} · ${formatUsd(a.meanCostUsd)} · ${costPerSuccessText(a)}${a.simulated ? ' — simulated prices (the sim: model’s made-up price list), not a real cost' : ''}`,
      ),
    ],
    ['budget of a trial', esc(budgetText(a.budget))],
    ['median wall-clock · to first green', esc(`${dur(a.medianWallMs)} · ${dur(a.medianFirstGreenMs)}`)],
    [
      'tokens uncached / cached input / output',
      esc(
        `${formatCount(a.tokens.input)} / ${formatCount(a.tokens.cachedInput)} / ${formatCount(a.tokens.output)}`,
      ),
    ],
    [
      'mean CriticalSteps · parallelism',
      esc(`${a.meanCriticalSteps?.toFixed(1) ?? '—'} · ${a.meanParallelism?.toFixed(2) ?? '—'}`),
    ],
    ['merges · conflicts', esc(`${a.merges} · ${a.conflicts}`)],
  ];
  return `<h3>${esc(armLabel(a))}</h3>${facts(rows)}`;
}

function comparisonTable(
  list: readonly Comparison[],
  against: string,
  confidence: number,
  label: (name: string) => string,
): string {
  const rows = list.map((c) => [
    esc(label(c.arm)),
    String(c.pairedTasks),
    esc(`${pct(c.armRate)} vs ${pct(c.soloRate)}`),
    `<span class="${c.significant ? ((c.diff ?? 0) > 0 ? 'sig' : 'loss') : ''}">${esc(pp(c.diff))}</span>`,
    esc(ppRange(c.ci)),
    esc(`${c.test} p ${pValue(c.p)}`),
    esc(`p ${pValue(c.pHolm)}${c.significant ? ' — significant' : ''}`),
    esc(`${c.discordant.armOnly} / ${c.discordant.soloOnly}`),
    esc(c.mde === null ? '—' : `±${(c.mde * 100).toFixed(1)} pp`),
    esc(`${times(c.costRatio)} · ${times(c.wallRatio)}`),
  ]);
  return table(
    [
      'arm',
      'tasks',
      `pass rate vs ${against}`,
      'difference',
      `${Math.round(confidence * 100)}% CI`,
      'test',
      'Holm-adjusted',
      `tasks arm better / ${against} better`,
      'MDE',
      'cost · wall-clock ×',
    ],
    rows,
  );
}

function againstSolo(s: EvalSummary): string {
  if (s.comparisons.length === 0) return '<p class="note">no arm was compared with a solo baseline</p>';
  const label = (name: string) => labelOf(s.arms, name);
  return comparisonTable(s.comparisons, label(s.baseline ?? 'solo'), s.confidence, label);
}

function pairwiseSection(s: EvalSummary): string {
  if (s.pairwise.length === 0) return '';
  const label = (name: string) => labelOf(s.arms, name);
  const body = s.pairwise
    .map(
      (c) =>
        `<h3>${esc(`${label(c.arm)} vs ${label(c.baseline)}`)}</h3>${comparisonTable([c], label(c.baseline), s.confidence, label)}`,
    )
    .join('');
  return section(
    'pairwise',
    'Arm against arm',
    `${body}<p class="note">Paired by task as against solo; Holm-adjusted across these ${s.pairwise.length} comparison(s) only.</p>`,
  );
}

function tagSection(s: EvalSummary): string {
  if (s.byTag.length === 0) return '';
  const head = ['tag', 'tasks', ...s.arms.map((a) => armLabel(a))];
  const rows = s.byTag.map((t) => [
    esc(t.tag),
    String(t.tasks),
    ...t.arms.map((a) => esc(a.tasks === 0 ? '—' : `${pct(a.passRate)}${range(a.interval)} on ${a.tasks}`)),
  ]);
  return section(
    'tags',
    'Per tag',
    `${table(head, rows)}<p class="note">Pass rate on the tasks carrying each tag (task.json tags), with its ${Math.round(s.confidence * 100)}% interval; few tasks make wide intervals.</p>`,
  );
}

/** What the title says about simulation: every arm, some arms or none. */
function simulationMark(s: EvalSummary): string {
  const simulated = s.arms.filter((a) => a.simulated).length;
  if (simulated === 0) return '';
  return simulated === s.arms.length ? ' (SIMULATED)' : ' (some arms simulated)';
}

export function evalPage(s: EvalSummary, source: string): string {
  const trials = s.arms.reduce((t, a) => t + a.trials, 0);
  const mark = simulationMark(s);
  const answer = `<ul class="answer">${s.headline.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`;
  const warnings = s.warnings.length
    ? `<section id="warnings" class="warn"><h2>About the data</h2><ul>${s.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></section>`
    : '';
  const body = [
    section('answer', 'Was the team worth it?', answer || '<p class="note">nothing to compare</p>'),
    warnings,
    section(
      'pass-rate',
      'Pass rate vs team size',
      `<div class="chart">${renderPassRateChart(s)}</div><p class="note">Whiskers: ${Math.round(s.confidence * 100)}% intervals. Dashed: the solo baseline.</p>`,
    ),
    section(
      'cost',
      'Cost vs pass rate',
      `<div class="chart">${renderCostParetoChart(s)}</div><p class="note">On the dashed frontier: ${esc(s.pareto.map((name) => labelOf(s.arms, name)).join(', ') || '—')}. An arm below or right of it costs more for no better pass rate.</p>`,
    ),
    section('solved', 'Solved over wall-clock', `<div class="chart">${renderSolvedChart(s)}</div>`),
    section('matrix', 'Per task against solo', `<div class="chart">${renderWinLossChart(s)}</div>`),
    section('comparisons', `Against ${s.baseline ?? 'solo'}`, againstSolo(s)),
    pairwiseSection(s),
    tagSection(s),
    section('arms', 'Arms', s.arms.map((a) => armTable(a, s.confidence)).join('')),
    section(
      'how-to-read',
      'How to read this',
      `<ul class="note">${howToRead(s)
        .map((l) => `<li>${esc(l)}</li>`)
        .join('')}</ul>`,
    ),
  ].join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Colony eval${mark} — ${esc(source)}</title><style>${CSS}</style></head>
<body><header><h1>Colony eval${mark}: was the team worth it?</h1><div class="sub">${esc(`${source} — ${s.arms.length} arms, ${trials} graded trials${s.budget ? `; matched budget ${budgetText(s.budget)} a trial` : ''}`)}</div></header>
<main>
${body}
<p class="note">Generated by colony eval report from trials.jsonl and arms.json.</p>
</main></body></html>
`;
}
