/** Linear scales, "nice" ticks and the shared time axis. */
import { formatCount, formatOffset } from '../format.js';
import { COLORS } from './palette.js';
import { esc, n } from './xml.js';

export interface Plot {
  left: number;
  top: number;
  width: number;
  height: number;
}

export function scale(
  domain0: number,
  domain1: number,
  range0: number,
  range1: number,
): (v: number) => number {
  const d = domain1 - domain0 || 1;
  return (v) => range0 + ((v - domain0) / d) * (range1 - range0);
}

/** About `count` round tick values covering [0, max]. */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(v);
  return ticks;
}

/** About `count` whole-number ticks covering [0, max], each once (counts: merges, agents). */
export function integerTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const mag = 10 ** Math.max(0, Math.floor(Math.log10(raw)));
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  for (let v = 0; v <= max; v += step) ticks.push(v);
  return ticks;
}

/** Time ticks as offsets from the start (ms), at round seconds/minutes. */
export function timeTicks(spanMs: number, count = 6): number[] {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600].map((s) => s * 1000);
  const step = steps.find((s) => s * count >= spanMs) ?? Math.ceil(spanMs / count);
  const ticks: number[] = [];
  for (let t = 0; t <= spanMs; t += step) ticks.push(t);
  return ticks;
}

export function timeAxis(plot: Plot, spanMs: number): string {
  const x = scale(0, Math.max(1, spanMs), plot.left, plot.left + plot.width);
  const y = plot.top + plot.height;
  let out = `<line x1="${plot.left}" y1="${y}" x2="${plot.left + plot.width}" y2="${y}" stroke="${COLORS.axis}"/>`;
  for (const t of timeTicks(spanMs)) {
    const xt = n(x(t));
    out += `<line x1="${xt}" y1="${plot.top}" x2="${xt}" y2="${y}" stroke="${COLORS.grid}"/>`;
    out += `<text x="${xt}" y="${y + 13}" text-anchor="middle" fill="${COLORS.axis}">${esc(formatOffset(t))}</text>`;
  }
  return out;
}

export function valueAxis(
  plot: Plot,
  max: number,
  format: (v: number) => string = formatCount,
  ticks: (max: number) => number[] = niceTicks,
): string {
  const y = scale(0, Math.max(max, 1e-12), plot.top + plot.height, plot.top);
  let out = '';
  for (const v of ticks(max)) {
    const yv = n(y(v));
    out += `<line x1="${plot.left}" y1="${yv}" x2="${plot.left + plot.width}" y2="${yv}" stroke="${COLORS.grid}"/>`;
    out += `<text x="${plot.left - 4}" y="${yv}" dy="3" text-anchor="end" fill="${COLORS.axis}">${esc(format(v))}</text>`;
  }
  return out;
}

export function legend(x: number, y: number, items: ReadonlyArray<[string, string]>): string {
  let out = '';
  let at = x;
  for (const [label, color] of items) {
    out += `<rect x="${at}" y="${y - 8}" width="10" height="10" fill="${color}"/><text x="${at + 14}" y="${y}" fill="#333">${esc(label)}</text>`;
    at += 20 + label.length * 6.2;
  }
  return out;
}
