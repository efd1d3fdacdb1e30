/**
 * The self-contained HTML report of a run: inline CSS, inline SVG charts and a few lines of inline
 * JS (the context feed's kind filter). No external reference of any kind, so it opens offline.
 */
import type { RunCharts } from '../view/charts.js';
import { formatCost, formatCount, formatDuration, formatOffset } from '../view/format.js';
import { GLOSSARY } from '../view/glossary.js';
import { limitHitText } from '../view/limit-text.js';
import type { RunView } from '../view/types.js';
import { capped, esc, facts, PAGE_CSS, section, table } from './html.js';
import type { RunFacts } from './run-metrics.js';

const CSS = `${PAGE_CSS}thead th{position:sticky;top:0}
table.facts th{width:220px}
.num{text-align:right;font-variant-numeric:tabular-nums}
.chart svg{max-width:100%;height:auto}
.status-succeeded{color:#1a7f37}.status-failed,.rejected,.fail{color:#b42318}
tr.fail td{background:#fdecea;font-weight:600}
.filters button{margin:0 4px 8px 0;border:1px solid #ccd;background:#fff;border-radius:4px;padding:2px 8px;cursor:pointer}
.filters button.off{opacity:.4}
`;

// The feed's kind filter: toggles rows by data-kind. Inline, no dependencies.
const SCRIPT = `
document.querySelectorAll('.filters button').forEach(function (b) {
  b.addEventListener('click', function () {
    b.classList.toggle('off');
    var hidden = b.classList.contains('off');
    document.querySelectorAll('#context tr[data-kind="' + b.dataset.kind + '"]').forEach(function (r) {
      r.style.display = hidden ? 'none' : '';
    });
  });
});
document.body.dataset.ready = 'true';
`;

const MAX_ROWS = 500;

/** The numbers of the summary explained under it (the same words as show --help and the dashboard). */
const GLOSSARY_TERMS = [
  'criticalSteps',
  'parallelism',
  'finishRate',
  'coordinationShare',
  'cachedInput',
  'cost',
] as const;

function opt(value: number | null, format: (v: number) => string = (v) => String(v)): string {
  return value === null ? '—' : esc(format(value));
}

/** Uncached input, cached input, cache writes (Anthropic bills them apart: the cost has them), output. */
function tokensCell(t: { uncached: number; cached: number; cacheWrite: number; output: number }): string {
  return esc([t.uncached, t.cached, t.cacheWrite, t.output].map(formatCount).join(' / '));
}

export function reportPage(view: RunView, f: RunFacts, charts: RunCharts): string {
  const start = view.startMs ?? 0;
  const at = (ms: number | null) => (ms === null ? '—' : esc(formatOffset(ms - start)));
  const m = f.metrics;
  const summary = facts([
    [
      'status',
      `<span class="status-${esc(f.status)}">${esc(f.status)}</span>${view.reason ? ` — ${esc(view.reason)}` : ''}`,
    ],
    ['topology · model', esc(`${f.topology ?? '—'} · ${f.model ?? '—'}`)],
    ['agents', String(f.agents)],
    ['wall-clock', esc(formatDuration(f.wallClockMs))],
    ['steps · tool calls', `${f.steps} · ${f.toolCalls}`],
    [
      'tokens uncached / cached input / cache writes / output',
      tokensCell({
        uncached: f.tokens.input,
        cached: f.tokens.cachedInput,
        cacheWrite: f.tokens.cacheWrite,
        output: f.tokens.output,
      }),
    ],
    ['cost', esc(formatCost(f.costUsd, f.steps))],
    ['CriticalSteps · parallelism', `${opt(m.criticalSteps)} · ${opt(m.parallelism, (v) => v.toFixed(2))}`],
    ['finish rate', opt(m.finishRate, pct)],
    [
      'coordination share of input · of uncached input',
      `${opt(m.coordinationShareOfInput, pct)} · ${opt(m.coordinationShareOfUncachedInput, pct)}`,
    ],
    [
      'critical path (view)',
      esc(
        `${f.criticalPath.steps} steps over ${formatDuration(f.criticalPath.durationMs)} — ${view.criticalPath.description}`,
      ),
    ],
    ['merges', esc(`${f.merges.landed} landed, ${f.merges.rejected} rejected`)],
    [
      'verify',
      f.verify
        ? `<code>${esc(f.verify.command)}</code> → ${f.verify.passed ? 'passed' : `<span class="fail">failed (exit ${esc(String(f.verify.exitCode))})</span>`}`
        : '—',
    ],
    ['events', String(view.events)],
  ]);
  const glossary = `<ul class="glossary note">${GLOSSARY_TERMS.map((t) => `<li>${esc(GLOSSARY[t])}</li>`).join('')}</ul>`;

  const agents = capped(view.agents, MAX_ROWS);
  const agentRows = agents.shown.map((a) => [
    esc(a.name),
    esc(a.profile ?? '—'),
    esc(a.finishStatus ?? a.state),
    `<span class="num">${a.steps}</span>`,
    `<span class="num">${a.toolCalls}</span>`,
    tokensCell(a.tokens),
    esc(formatCost(a.costUsd, a.steps)),
    esc(a.startedMs !== null && a.finishedMs !== null ? formatDuration(a.finishedMs - a.startedMs) : '—'),
    esc(a.branch ?? '—'),
    esc(a.finishReason ?? a.lastAction ?? ''),
  ]);

  const merges = capped(view.merges, MAX_ROWS);
  const mergeRows = merges.shown.map((mr) => [
    `#${mr.mr}`,
    esc(mr.agent ?? '—'),
    `<span class="${mr.status}">${esc(mr.status)}</span>`,
    esc(mr.reason ? `${mr.reason}${mr.files.length ? `: ${mr.files.join(', ')}` : ''}` : ''),
    at(mr.requestedMs),
    at(mr.decidedMs),
    esc(mr.note),
  ]);

  const kinds = [...new Set(view.context.map((c) => c.kind))];
  const feed = capped(view.context, MAX_ROWS);
  const feedRows = feed.shown
    .map(
      (c) =>
        `<tr data-kind="${esc(c.kind)}"${c.kind === 'FAIL' ? ' class="fail"' : ''}><td>#${c.id}</td><td>${at(c.tMs)}</td><td>${esc(c.kind)}</td><td>${esc(c.agent ?? '—')}</td><td>${esc(c.summary)}</td><td>${esc(c.scope?.join(', ') ?? '')}</td></tr>`,
    )
    .join('');
  const filters = `<div class="filters">${kinds.map((k) => `<button type="button" data-kind="${esc(k)}">${esc(k)} (${view.context.filter((c) => c.kind === k).length})</button>`).join('')}</div>`;

  const messages = capped(view.messages, MAX_ROWS);
  const messageRows = messages.shown.map((msg) => [
    at(msg.tMs),
    esc(msg.from ?? '—'),
    esc(msg.to ?? (msg.channel ? `#${msg.channel}` : '—')),
    esc(msg.text),
    msg.deliveredMs === null ? '—' : `${at(msg.deliveredMs)} (${esc(msg.via ?? '')})`,
  ]);

  const body = [
    section('summary', 'Summary', summary + glossary),
    section('timeline', 'Timeline', `<div class="chart">${charts.timeline}</div>`),
    section(
      'usage',
      'Tokens and cost',
      `<div class="chart">${charts.tokens}</div><div class="chart">${charts.cost}</div>`,
    ),
    section(
      'agents',
      `Agents (${view.agents.length})`,
      agents.note +
        table(
          [
            'agent',
            'profile',
            'status',
            'steps',
            'tools',
            'tokens unc/cached/writes/out',
            'cost',
            'span',
            'branch',
            'last',
          ],
          agentRows,
        ),
    ),
    section(
      'integration',
      `Integration queue (${view.merges.length})`,
      `<div class="chart">${charts.merges}</div>${merges.note}${view.merges.length ? table(['MR', 'agent', 'status', 'reason', 'requested', 'decided', 'note'], mergeRows) : '<p class="note">no merge requests</p>'}`,
    ),
    section(
      'context',
      `Shared context (${view.context.length})`,
      view.context.length
        ? `${filters}${feed.note}<table><thead><tr><th>id</th><th>at</th><th>kind</th><th>agent</th><th>summary</th><th>scope</th></tr></thead><tbody>${feedRows}</tbody></table>`
        : '<p class="note">no entries</p>',
    ),
    section(
      'messages',
      `Messages (${view.messages.length})`,
      view.messages.length
        ? messages.note + table(['at', 'from', 'to', 'text', 'delivered'], messageRows)
        : '<p class="note">no messages</p>',
    ),
    section(
      'limits',
      'Limits hit',
      view.limits.length
        ? table(
            ['at', 'agent', 'what happened'],
            view.limits.map((l) => [at(l.tMs), esc(l.agent ?? 'run'), esc(limitHitText(l))]),
          )
        : '<p class="note">none</p>',
    ),
  ].join('\n');

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Colony run ${esc(f.runId)}</title><style>${CSS}</style></head>
<body><header><h1>Colony run ${esc(f.runId)}</h1><div class="goal">${esc(view.goal ?? '')}</div></header>
<main>
${body}
<p class="note">Generated by colony report from the run's event log (last seq ${view.lastSeq}).</p>
</main><script>${SCRIPT}</script></body></html>
`;
}

function pct(v: number): string {
  return `${Math.round(v * 1000) / 10}%`;
}
