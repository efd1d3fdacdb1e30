/**
 * Cost vs pass rate with the Pareto frontier: each arm at (mean cost of a trial, pass rate) with its
 * interval; the frontier is the staircase through the arms no other arm beats on both.
 */

import { formatUsd } from '../../view/format.js';
import { niceTicks, type Plot, scale } from '../../view/svg/axes.js';
import { empty, type Frame, frame, n } from '../../view/svg/xml.js';
import { armColor, bottomAxis, pointWithInterval, shareAxis } from './chart-kit.js';
import { pct } from './format.js';
import type { EvalChartOptions } from './pass-rate-chart.js';
import { armLabel } from './simulated.js';
import type { EvalSummary } from './summary-types.js';

const FRONTIER = '#222';

export function renderCostParetoChart(summary: EvalSummary, options: EvalChartOptions = {}): string {
  const f: Frame = {
    chart: 'cost-pareto',
    title: 'Cost vs pass rate (Pareto frontier dashed)',
    width: options.width ?? 720,
    height: options.height ?? 320,
  };
  const arms = summary.arms.filter((a) => a.passRate !== null && a.meanCostUsd !== null);
  if (arms.length === 0) return empty(f, 'no graded trials');
  const plot: Plot = { left: 64, top: 36, width: f.width - 96, height: f.height - 36 - 40 };
  const maxCost = Math.max(...arms.map((a) => a.meanCostUsd ?? 0));
  const top = maxCost > 0 ? maxCost * 1.1 : 1;
  const ticks = niceTicks(top);
  const x = scale(0, Math.max(top, ticks[ticks.length - 1] ?? 0), plot.left, plot.left + plot.width);
  const { y, svg: yAxis } = shareAxis(plot, 'pass rate');
  // Simulated arms' costs come from the sim: model's made-up prices: the axis says so.
  const prices = arms.some((a) => a.simulated)
    ? arms.every((a) => a.simulated)
      ? ' (simulated prices)'
      : ' (simulated prices for the simulated arms)'
    : '';
  let body = yAxis + bottomAxis(plot, x, ticks, formatUsd, `mean cost of a trial${prices}`);
  const front = summary.pareto
    .map((name) => arms.find((a) => a.name === name))
    .filter((a) => a !== undefined);
  if (front.length > 0) {
    const pts: string[] = [];
    front.forEach((a, i) => {
      const px = n(x(a.meanCostUsd ?? 0));
      const py = n(y(a.passRate ?? 0));
      if (i > 0) pts.push(`${px},${n(y(front[i - 1]?.passRate ?? 0))}`);
      pts.push(`${px},${py}`);
    });
    pts.push(`${n(plot.left + plot.width)},${n(y(front[front.length - 1]?.passRate ?? 0))}`);
    body += `<polyline points="${pts.join(' ')}" fill="none" stroke="${FRONTIER}" stroke-dasharray="5 3" stroke-width="1.5" data-series="pareto"/>`;
  }
  for (const a of arms) {
    body += pointWithInterval(
      x(a.meanCostUsd ?? 0),
      y(a.passRate ?? 0),
      a.interval ? y(a.interval.lo) : null,
      a.interval ? y(a.interval.hi) : null,
      armColor(summary.arms.indexOf(a)),
      `${armLabel(a)}: ${pct(a.passRate)} at ${formatUsd(a.meanCostUsd)} a trial${a.simulated ? ' (simulated prices)' : ''}, ${a.costPerSuccessUsd === null ? 'no success' : `${formatUsd(a.costPerSuccessUsd)} a success`}${summary.pareto.includes(a.name) ? ' — on the frontier' : ' — dominated'}`,
      a.name,
      x(a.meanCostUsd ?? 0) > plot.left + plot.width * 0.85,
      armLabel(a),
    );
  }
  return frame(f, body);
}
