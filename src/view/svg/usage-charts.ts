/**
 * Tokens over time (stacked bars: uncached input, cached input, cache writes, output) and cost over
 * time.
 */
import { formatUsd } from '../format.js';
import { mergeSeries, usageSeries } from '../series.js';
import type { RunView } from '../types.js';
import { integerTicks, legend, type Plot, scale, timeAxis, valueAxis } from './axes.js';
import { COLORS } from './palette.js';
import { empty, esc, type Frame, frame, n } from './xml.js';

export interface ChartOptions {
  width?: number;
  height?: number;
  buckets?: number;
}

function setup(view: RunView, chart: string, title: string, options: ChartOptions) {
  const width = options.width ?? 960;
  const height = options.height ?? 240;
  const f: Frame = { chart, title, width, height };
  const plot: Plot = { left: 56, top: 44, width: width - 68, height: height - 44 - 24 };
  const start = view.startMs ?? 0;
  const span = Math.max(1, (view.endMs ?? start) - start);
  return { f, plot, start, span, x: scale(0, span, plot.left, plot.left + plot.width) };
}

export function renderTokensChart(view: RunView, options: ChartOptions = {}): string {
  const { f, plot, start, span } = setup(view, 'tokens', 'Tokens over time', options);
  if (view.usage.length === 0) return empty(f, 'no model calls yet');
  const series = usageSeries(view.usage, start, start + span, options.buckets ?? 60);
  const max = Math.max(1, ...series.buckets.map((b) => b.uncached + b.cached + b.cacheWrite + b.output));
  const y = scale(0, max, plot.top + plot.height, plot.top);
  let body = legend(8, 32, [
    ['uncached input', COLORS.uncached],
    ['cached input', COLORS.cached],
    ['cache writes', COLORS.cacheWrite],
    ['output', COLORS.output],
  ]);
  body += valueAxis(plot, max) + timeAxis(plot, span);
  const bw = plot.width / series.buckets.length;
  series.buckets.forEach((b, i) => {
    let base = 0;
    for (const key of ['uncached', 'cached', 'cacheWrite', 'output'] as const) {
      const value = b[key];
      if (value <= 0) continue;
      const top = y(base + value);
      body += `<rect x="${n(plot.left + i * bw + 0.5)}" y="${n(top)}" width="${n(Math.max(0.5, bw - 1))}" height="${n(y(base) - top)}" fill="${COLORS[key]}" data-series="${key}"><title>${esc(`${key}: ${value}`)}</title></rect>`;
      base += value;
    }
  });
  return frame(f, body);
}

export function renderCostChart(view: RunView, options: ChartOptions = {}): string {
  const { f, plot, start, span, x } = setup(view, 'cost', 'Cost over time (cumulative)', options);
  if (view.usage.length === 0) return empty(f, 'no model calls yet');
  if (view.totals.costUsd === null) return empty(f, 'no call was priced (unpriced model)');
  if (view.totals.costUsd === 0) return empty(f, 'every call cost $0 (e.g. the scripted model)');
  const series = usageSeries(view.usage, start, start + span, options.buckets ?? 120);
  const max = Math.max(1e-6, series.buckets[series.buckets.length - 1]?.cumCostUsd ?? 0);
  const y = scale(0, max, plot.top + plot.height, plot.top);
  const points = [`${n(plot.left)},${n(y(0))}`];
  for (const b of series.buckets) points.push(`${n(x(b.tMs - start))},${n(y(b.cumCostUsd))}`);
  let body = legend(8, 32, [[`cost (total ${formatUsd(view.totals.costUsd)})`, COLORS.cost]]);
  body += valueAxis(plot, max, formatUsd) + timeAxis(plot, span);
  body += `<polyline points="${points.join(' ')}" fill="none" stroke="${COLORS.cost}" stroke-width="2" data-series="cost"/>`;
  return frame(f, body);
}

export function renderMergesChart(view: RunView, options: ChartOptions = {}): string {
  const { f, plot, start, span, x } = setup(view, 'merges', 'Merges over time (cumulative)', options);
  const steps = mergeSeries(view.merges);
  if (steps.length === 0) return empty(f, 'no merge decided (solo runs have no integration queue)');
  const max = Math.max(1, ...steps.map((s) => Math.max(s.landed, s.rejected)));
  const y = scale(0, max, plot.top + plot.height, plot.top);
  const path = (key: 'landed' | 'rejected') => {
    const pts = [`${n(plot.left)},${n(y(0))}`];
    let prev = 0;
    for (const s of steps) {
      const xs = n(x(s.tMs - start));
      pts.push(`${xs},${n(y(prev))}`, `${xs},${n(y(s[key]))}`);
      prev = s[key];
    }
    pts.push(`${n(plot.left + plot.width)},${n(y(prev))}`);
    return `<polyline points="${pts.join(' ')}" fill="none" stroke="${COLORS[key]}" stroke-width="2" data-series="${key}"/>`;
  };
  const last = steps[steps.length - 1];
  let body = legend(8, 32, [
    [`landed (${last?.landed ?? 0})`, COLORS.landed],
    [`rejected (${last?.rejected ?? 0})`, COLORS.rejected],
  ]);
  body += valueAxis(plot, max, String, integerTicks) + timeAxis(plot, span);
  body += path('landed') + path('rejected');
  return frame(f, body);
}
