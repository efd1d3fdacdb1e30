/// <reference lib="dom" />
/**
 * Tokens and cost over time. Drawn with the report's SVG renderers (src/view, loaded from
 * /assets/view/) so the dashboard and `colony report` show the same charts; a small built-in
 * renderer is the fallback when those modules are not built.
 */
import type { SeriesPoint } from '../view/compact-types.js';
import type { UsagePoint } from '../view/types.js';

/** The slice of the report's RunView that its usage charts read. */
export interface ChartInput {
  startMs: number | null;
  endMs: number | null;
  usage: UsagePoint[];
  totals: { costUsd: number | null };
}

type Renderer = (view: ChartInput, options: { width?: number; height?: number }) => string;
let renderers: Promise<{ tokens: Renderer; cost: Renderer } | null> | null = null;

function loadRenderers() {
  renderers ??= import('../view/svg/usage-charts.js' as string)
    .then((m: { renderTokensChart?: Renderer; renderCostChart?: Renderer }) =>
      m.renderTokensChart && m.renderCostChart
        ? { tokens: m.renderTokensChart, cost: m.renderCostChart }
        : null,
    )
    .catch(() => null);
  return renderers;
}

/** Cumulative series points → per-interval usage points (what the report's charts bucket). */
export function toChartInput(
  series: readonly SeriesPoint[],
  startMs: number,
  endMs: number,
  costUsd: number | null,
): ChartInput {
  const usage: UsagePoint[] = [];
  let prev: Omit<SeriesPoint, 't'> = { uncached: 0, cached: 0, cacheWrite: 0, output: 0, costUsd: null };
  for (const p of series) {
    usage.push({
      tMs: p.t,
      agent: '',
      uncached: p.uncached - prev.uncached,
      cached: p.cached - prev.cached,
      cacheWrite: p.cacheWrite - prev.cacheWrite,
      output: p.output - prev.output,
      costUsd: costUsd === null || p.costUsd === null ? null : p.costUsd - (prev.costUsd ?? 0),
    });
    prev = p;
  }
  return { startMs, endMs, usage, totals: { costUsd } };
}

function fallbackTokens(input: ChartInput, width: number, height: number): string {
  if (input.usage.length === 0 || input.startMs === null)
    return `<svg width="${width}" height="40"><text x="8" y="24" class="svg-muted">no model calls yet</text></svg>`;
  const span = Math.max(1, (input.endMs ?? input.startMs) - input.startMs);
  const max = Math.max(1, ...input.usage.map((u) => u.uncached + u.cached + u.cacheWrite + u.output));
  const bw = (width - 16) / Math.max(1, input.usage.length);
  let body = '';
  for (const u of input.usage) {
    const x = 8 + ((u.tMs - input.startMs) / span) * (width - 16) - bw;
    let base = height - 16;
    for (const [key, color] of [
      ['uncached', '#6e8efb'],
      ['cached', '#35b28a'],
      ['cacheWrite', '#f28e2b'],
      ['output', '#d6a14b'],
    ] as const) {
      const hgt = (u[key] / max) * (height - 24);
      base -= hgt;
      body += `<rect x="${x.toFixed(1)}" y="${base.toFixed(1)}" width="${Math.max(0.5, bw - 1).toFixed(1)}" height="${hgt.toFixed(1)}" fill="${color}"/>`;
    }
  }
  return `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`;
}

export async function renderUsageCharts(target: HTMLElement, input: ChartInput): Promise<void> {
  const width = Math.max(320, Math.min(960, target.clientWidth || 640));
  const r = await loadRenderers();
  const tokens = r ? r.tokens(input, { width, height: 200 }) : fallbackTokens(input, width, 200);
  const cost = r ? r.cost(input, { width, height: 160 }) : '';
  target.innerHTML = `<div class="chart">${tokens}</div>${cost ? `<div class="chart">${cost}</div>` : ''}`;
}
