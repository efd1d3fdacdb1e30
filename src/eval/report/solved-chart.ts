/** Cumulative share of trials solved vs wall-clock, one step line per arm. */

import { formatOffset } from '../../view/format.js';
import { legend, type Plot, scale, timeTicks } from '../../view/svg/axes.js';
import { empty, esc, type Frame, frame, n } from '../../view/svg/xml.js';
import { armColor, bottomAxis, shareAxis } from './chart-kit.js';
import { pct } from './format.js';
import type { EvalChartOptions } from './pass-rate-chart.js';
import { armLabel } from './simulated.js';
import type { EvalSummary } from './summary-types.js';

export function renderSolvedChart(summary: EvalSummary, options: EvalChartOptions = {}): string {
  const f: Frame = {
    chart: 'solved',
    title: 'Cumulative share solved vs wall-clock',
    width: options.width ?? 720,
    height: options.height ?? 320,
  };
  const arms = summary.arms.filter((a) => a.trials > 0);
  const span = Math.max(0, ...arms.flatMap((a) => a.solved.map((p) => p.ms)));
  if (arms.length === 0 || span === 0) return empty(f, 'no trial passed');
  const plot: Plot = { left: 64, top: 44, width: f.width - 96, height: f.height - 44 - 40 };
  const x = scale(0, span, plot.left, plot.left + plot.width);
  const { y, svg: yAxis } = shareAxis(plot, 'share of trials solved');
  let body =
    legend(
      plot.left,
      32,
      arms.map((a) => [armLabel(a), armColor(summary.arms.indexOf(a))] as [string, string]),
    ) +
    yAxis +
    bottomAxis(plot, x, timeTicks(span), formatOffset, 'wall-clock since the trial started');
  for (const a of arms) {
    const pts = [`${n(x(0))},${n(y(0))}`];
    let prev = 0;
    for (const p of a.solved) {
      pts.push(`${n(x(p.ms))},${n(y(prev))}`, `${n(x(p.ms))},${n(y(p.share))}`);
      prev = p.share;
    }
    pts.push(`${n(x(span))},${n(y(prev))}`);
    body += `<polyline points="${pts.join(' ')}" fill="none" stroke="${armColor(summary.arms.indexOf(a))}" stroke-width="2" data-series="${esc(a.name)}"><title>${esc(`${armLabel(a)}: ${pct(prev)} of ${a.trials} trials solved`)}</title></polyline>`;
  }
  return frame(f, body);
}
