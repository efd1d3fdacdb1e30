/**
 * `colony plan`'s two charts (SVG strings on src/view/svg and the eval chart kit): makespan against
 * team size — the Monte-Carlo p10–p90 band, its p50, Brent's bounds, the recorded run's own active
 * time at its team size and the recommended size — and cost against team size (p10–p90, p50).
 * Team size is on a log2 axis, so 1, 2, 4, 8, 16 are evenly spaced.
 */

import { formatDuration, formatUsd } from '../../view/format.js';
import { type Plot, scale, valueAxis } from '../../view/svg/axes.js';
import { COLORS } from '../../view/svg/palette.js';
import { empty, esc, frame, n } from '../../view/svg/xml.js';
import { bottomAxis, pointWithInterval } from '../report/chart-kit.js';
import type { PlanReport, PlanRow } from './plan.js';

const WIDTH = 640;
const HEIGHT = 320;
const PLOT: Plot = { left: 72, top: 44, width: WIDTH - 72 - 24, height: HEIGHT - 44 - 44 };
const BAND = '#a0cbe8';
const LINE = '#4e79a7';
const BRENT = '#666';
const RECOMMENDED = '#59a14f';

function xAxisOf(rows: readonly PlanRow[]): (p: number) => number {
  const logs = rows.map((r) => Math.log2(r.p));
  const lo = Math.min(...logs);
  const hi = Math.max(...logs);
  // One size only: centre it.
  if (hi === lo) return () => PLOT.left + PLOT.width / 2;
  const x = scale(lo, hi, PLOT.left + 12, PLOT.left + PLOT.width - 12);
  return (p) => x(Math.log2(p));
}

const path = (points: ReadonlyArray<[number, number]>): string =>
  points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${n(x)} ${n(y)}`).join(' ');

function band(
  rows: readonly PlanRow[],
  x: (p: number) => number,
  y: (v: number) => number,
  q: (r: PlanRow) => { p10: number; p50: number; p90: number },
  series: string,
): string {
  const top = rows.map((r): [number, number] => [x(r.p), y(q(r).p90)]);
  const bottom = rows.map((r): [number, number] => [x(r.p), y(q(r).p10)]).reverse();
  const area = `<path d="${path([...top, ...bottom])} Z" fill="${BAND}" fill-opacity="0.55" data-band="${series}"/>`;
  const median = `<path d="${path(rows.map((r) => [x(r.p), y(q(r).p50)]))}" fill="none" stroke="${LINE}" stroke-width="2" data-line="${series} p50"/>`;
  return area + median;
}

function recommendedMark(report: PlanReport, x: (p: number) => number): string {
  const p = report.recommendation?.p;
  if (p === undefined) return '';
  const xp = n(x(p));
  return (
    `<line x1="${xp}" y1="${PLOT.top}" x2="${xp}" y2="${PLOT.top + PLOT.height}" stroke="${RECOMMENDED}" stroke-width="2" stroke-dasharray="5 3" data-recommended="${p}"/>` +
    `<text x="${xp}" y="${PLOT.top - 4}" text-anchor="middle" fill="${RECOMMENDED}" font-weight="600">recommended: ${p}</text>`
  );
}

function legendRow(items: ReadonlyArray<[string, string, string]>): string {
  let at = PLOT.left;
  let out = '';
  for (const [label, color, dash] of items) {
    out += `<line x1="${at}" y1="${HEIGHT - 8}" x2="${at + 18}" y2="${HEIGHT - 8}" stroke="${color}" stroke-width="${dash === 'band' ? 8 : 2}"${dash && dash !== 'band' ? ` stroke-dasharray="${dash}"` : ''}/>`;
    out += `<text x="${at + 22}" y="${HEIGHT - 5}" fill="#333">${esc(label)}</text>`;
    at += 32 + label.length * 6.2;
  }
  return out;
}

export function renderMakespanChart(report: PlanReport): string {
  const f = { chart: 'plan-makespan', title: 'Makespan by team size', width: WIDTH, height: HEIGHT };
  const rows = [...report.rows].sort((a, b) => a.p - b.p);
  if (rows.length === 0 || report.tasks === 0) return empty(f, 'no tasks');
  const active = report.measured.activeMs;
  const max = Math.max(...rows.map((r) => Math.max(r.makespanMs.p90, r.brentUpperMs)), active ?? 0);
  const x = xAxisOf(rows);
  const y = scale(0, Math.max(max, 1), PLOT.top + PLOT.height, PLOT.top);
  const brent = (which: 'brentLowerMs' | 'brentUpperMs', dash: string): string =>
    `<path d="${path(rows.map((r) => [x(r.p), y(r[which])]))}" fill="none" stroke="${BRENT}" stroke-dasharray="${dash}" data-line="${which}"/>`;
  const measured =
    active !== null
      ? pointWithInterval(
          x(report.measured.teamSize),
          y(active),
          null,
          null,
          COLORS.critical,
          `recorded: ${formatDuration(active)} of tasks with ${report.measured.teamSize} agent(s)`,
          'recorded',
        )
      : '';
  const body =
    valueAxis(PLOT, max, formatDuration) +
    teamSizeAxis(x, rows) +
    band(rows, x, y, (r) => r.makespanMs, 'makespan') +
    brent('brentLowerMs', '2 3') +
    brent('brentUpperMs', '6 3') +
    rows
      .map(
        (r) =>
          `<circle cx="${n(x(r.p))}" cy="${n(y(r.makespanMs.p50))}" r="3" fill="${LINE}"><title>${esc(`${r.p} agent(s): p50 ${formatDuration(r.makespanMs.p50)}, p10–p90 ${formatDuration(r.makespanMs.p10)}–${formatDuration(r.makespanMs.p90)}, Brent ${formatDuration(r.brentLowerMs)}–${formatDuration(r.brentUpperMs)}`)}</title></circle>`,
      )
      .join('') +
    (report.measured.teamSize >= (rows[0]?.p ?? 1) &&
    report.measured.teamSize <= (rows[rows.length - 1]?.p ?? 1)
      ? measured
      : '') +
    recommendedMark(report, x) +
    legendRow([
      ['p10–p90', BAND, 'band'],
      ['p50', LINE, ''],
      ['Brent low', BRENT, '2 3'],
      ['Brent high', BRENT, '6 3'],
    ]);
  return frame(f, body);
}

/** Ticks at the powers of two and the largest size: every size 1 … 32 would crowd the log axis. */
function teamSizeAxis(x: (p: number) => number, rows: readonly { p: number }[]): string {
  const sizes = rows.map((r) => r.p);
  const last = sizes[sizes.length - 1];
  const ticks = sizes.filter((p) => (p & (p - 1)) === 0 || p === last);
  return bottomAxis(PLOT, x, ticks, String, 'team size (agents)');
}

export function renderCostChart(report: PlanReport): string {
  const f = { chart: 'plan-cost', title: 'Cost by team size', width: WIDTH, height: HEIGHT };
  const rows = [...report.rows].sort((a, b) => a.p - b.p);
  const priced = rows.flatMap((r) => (r.costUsd ? [{ ...r, costUsd: r.costUsd }] : []));
  if (priced.length === 0) return empty(f, 'no cost recorded');
  const max = Math.max(...priced.map((r) => r.costUsd.p90), 1e-9);
  const x = xAxisOf(rows);
  const y = scale(0, max, PLOT.top + PLOT.height, PLOT.top);
  const body =
    valueAxis(PLOT, max, (v) => formatUsd(v)) +
    teamSizeAxis(x, rows) +
    band(priced, x, y, (r) => r.costUsd ?? { p10: 0, p50: 0, p90: 0 }, 'cost') +
    recommendedMark(report, x) +
    legendRow([
      ['p10–p90', BAND, 'band'],
      ['p50', LINE, ''],
    ]);
  return frame(f, body);
}
