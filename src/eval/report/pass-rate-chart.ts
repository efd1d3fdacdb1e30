/**
 * Pass rate vs team size: one point per arm with its interval, arms of one topology joined by a
 * line, and solo's pass rate as a dashed reference. Sizes on a log2 axis when they span 4× or more
 * (1, 2, 4, … 1024 agents stay readable).
 */
import { type Plot, scale } from '../../view/svg/axes.js';
import { COLORS } from '../../view/svg/palette.js';
import { empty, esc, type Frame, frame, n } from '../../view/svg/xml.js';
import { armColor, bottomAxis, pointWithInterval, shareAxis } from './chart-kit.js';
import { pct } from './format.js';
import { armLabel } from './simulated.js';
import type { ArmSummary, EvalSummary } from './summary-types.js';

export interface EvalChartOptions {
  width?: number;
  height?: number;
}

export function renderPassRateChart(summary: EvalSummary, options: EvalChartOptions = {}): string {
  const f: Frame = {
    chart: 'pass-rate',
    title: 'Pass rate vs team size',
    width: options.width ?? 720,
    height: options.height ?? 320,
  };
  const arms = summary.arms.filter((a) => a.passRate !== null);
  if (arms.length === 0) return empty(f, 'no graded trials');
  const plot: Plot = { left: 64, top: 36, width: f.width - 96, height: f.height - 36 - 40 };
  const sizes = [...new Set(arms.map((a) => a.size))].sort((a, b) => a - b);
  const lo = sizes[0] ?? 1;
  const hi = sizes[sizes.length - 1] ?? 1;
  const log = hi / lo >= 4;
  const t = (v: number) => (log ? Math.log2(v) : v);
  const pad = sizes.length > 1 ? (t(hi) - t(lo)) * 0.08 : 1;
  const sx = scale(t(lo) - pad, t(hi) + pad, plot.left, plot.left + plot.width);
  const x = (v: number) => sx(t(v));
  const { y, svg: yAxis } = shareAxis(plot, 'pass rate');
  let body = yAxis + bottomAxis(plot, x, sizes, String, `agents in the team${log ? ' (log scale)' : ''}`);
  const solo = summary.arms.find((a) => a.name === summary.baseline);
  if (solo?.passRate !== null && solo?.passRate !== undefined) {
    const ys = n(y(solo.passRate));
    body += `<line x1="${plot.left}" y1="${ys}" x2="${plot.left + plot.width}" y2="${ys}" stroke="${COLORS.axis}" stroke-dasharray="4 3" data-series="solo-reference"/><text x="${plot.left + plot.width - 2}" y="${n(y(solo.passRate) - 4)}" text-anchor="end" fill="${COLORS.axis}">${esc(`${armLabel(solo)} ${pct(solo.passRate)}`)}</text>`;
  }
  const byTopology = new Map<string, ArmSummary[]>();
  for (const a of arms) byTopology.set(a.topology, [...(byTopology.get(a.topology) ?? []), a]);
  for (const group of byTopology.values()) {
    if (group.length < 2) continue;
    const color = armColor(summary.arms.indexOf(group[0] as ArmSummary));
    const points = [...group]
      .sort((a, b) => a.size - b.size)
      .map((a) => `${n(x(a.size))},${n(y(a.passRate ?? 0))}`);
    body += `<polyline points="${points.join(' ')}" fill="none" stroke="${color}" stroke-opacity="0.5" stroke-width="1.5"/>`;
  }
  for (const a of arms) {
    const rate = a.passRate ?? 0;
    body += pointWithInterval(
      x(a.size),
      y(rate),
      a.interval ? y(a.interval.lo) : null,
      a.interval ? y(a.interval.hi) : null,
      armColor(summary.arms.indexOf(a)),
      `${armLabel(a)} (${a.topology}, ${a.size} agents): ${pct(rate)}, ${Math.round(summary.confidence * 100)}% interval ${pct(a.interval?.lo ?? null)}–${pct(a.interval?.hi ?? null)} (${a.interval?.method ?? '—'}), ${a.tasks} tasks`,
      a.name,
      x(a.size) > plot.left + plot.width * 0.85,
      armLabel(a),
    );
  }
  return frame(f, body);
}
