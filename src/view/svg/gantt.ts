/**
 * The timeline (Gantt) of agents' steps with the critical path highlighted. Up to `maxLanes` agents
 * get one row each; more agents are drawn aggregated (how many are in model / tool calls over time).
 */
import { formatOffset } from '../format.js';
import { aggregateTimeline, firstBarMs } from '../timeline.js';
import type { RunView, TimelineBar } from '../types.js';
import { legend, type Plot, scale, timeAxis, valueAxis } from './axes.js';
import { COLORS } from './palette.js';
import { empty, esc, type Frame, frame, n } from './xml.js';

export interface GanttOptions {
  width?: number;
  maxLanes?: number;
  rowHeight?: number;
}

const LABEL_WIDTH = 110;

export function renderGantt(view: RunView, options: GanttOptions = {}): string {
  const width = options.width ?? 960;
  const maxLanes = options.maxLanes ?? 60;
  const row = options.rowHeight ?? 14;
  const lanes = view.lanes;
  const f: Frame = {
    chart: 'timeline',
    title: 'Timeline of agents (critical path in red)',
    width,
    height: 120,
  };
  if (view.startMs === null || view.endMs === null || lanes.length === 0) return empty(f, 'no steps yet');
  if (lanes.length > maxLanes) return aggregated(view, width);
  const start = firstBarMs(lanes) ?? view.startMs;
  const span = Math.max(1, view.endMs - start);
  if (start > view.startMs)
    f.title += `, from the first step (${formatOffset(start - view.startMs)} after the run started)`;

  const plot: Plot = {
    left: LABEL_WIDTH,
    top: 48,
    width: width - LABEL_WIDTH - 12,
    height: lanes.length * row,
  };
  const x = scale(0, span, plot.left, plot.left + plot.width);
  f.height = plot.top + plot.height + 24;
  let body = legend(8, 34, [
    ['model call', COLORS.model],
    ['tool call', COLORS.tool],
    ['waiting', COLORS.wait],
    ['error', COLORS.error],
    ['critical path', COLORS.critical],
  ]);
  body += timeAxis(plot, span);
  body += criticalRow(view, start, x, plot.top - 8);
  const critical = view.criticalPath.segments;
  lanes.forEach((lane, i) => {
    const y = plot.top + i * row;
    const segs = critical.filter((s) => s.agent === lane.agent);
    for (const s of segs)
      body += `<rect x="${n(x(s.startMs - start))}" y="${y}" width="${n(Math.max(1, x(s.endMs - start) - x(s.startMs - start)))}" height="${row}" fill="${COLORS.criticalBand}" data-critical="true"/>`;
    const name = lane.agent.length > 16 ? `${lane.agent.slice(0, 15)}…` : lane.agent;
    body += `<text x="${LABEL_WIDTH - 6}" y="${y + row - 3}" text-anchor="end" fill="${segs.length > 0 ? COLORS.critical : '#333'}">${esc(name)}</text>`;
    for (const bar of coalesce(lane.bars, start, x)) {
      const onPath = segs.some((s) => bar.endMs >= s.startMs && bar.startMs <= s.endMs);
      // The dashboard's colours: a wait is amber however it ended, a failed call red.
      const color = bar.wait ? COLORS.wait : bar.error ? COLORS.error : COLORS[bar.kind];
      const x0 = x(bar.startMs - start);
      const w = Math.max(1, x(bar.endMs - start) - x0);
      const stroke = onPath ? ` stroke="${COLORS.critical}" stroke-width="1"` : '';
      const title = bar.label
        ? `<title>${esc(`${lane.agent} step ${bar.step}: ${bar.label} (${formatOffset(bar.startMs - start)})`)}</title>`
        : '';
      body += `<rect x="${n(x0)}" y="${y + 2}" width="${n(w)}" height="${row - 4}" fill="${color}"${stroke}${bar.open ? ' opacity="0.6"' : ''} data-bar="${bar.kind}"${bar.wait ? ' data-wait="true"' : ''}>${title}</rect>`;
    }
  });
  return frame(f, body);
}

/** The critical path as a red band of segments above the lanes. */
function criticalRow(view: RunView, start: number, x: (v: number) => number, y: number): string {
  let out = '';
  for (const s of view.criticalPath.segments)
    out += `<rect x="${n(x(s.startMs - start))}" y="${y}" width="${n(Math.max(1, x(s.endMs - start) - x(s.startMs - start)))}" height="5" fill="${COLORS.critical}" data-critical="true"><title>${esc(s.label)}</title></rect>`;
  return out;
}

/** Bars closer than a pixel merge into one rect (a 10,000-step lane would be 10,000 rects otherwise). */
function coalesce(bars: readonly TimelineBar[], start: number, x: (v: number) => number): TimelineBar[] {
  const out: TimelineBar[] = [];
  for (const bar of [...bars].sort((a, b) => a.startMs - b.startMs)) {
    const last = out[out.length - 1];
    if (
      last &&
      last.kind === bar.kind &&
      last.error === bar.error &&
      last.wait === bar.wait &&
      x(bar.startMs - start) - x(last.endMs - start) < 1 &&
      x(bar.endMs - start) - x(last.startMs - start) < 3
    ) {
      last.endMs = Math.max(last.endMs, bar.endMs);
      last.label = '';
    } else out.push({ ...bar });
  }
  return out;
}

function aggregated(view: RunView, width: number): string {
  const start = view.startMs ?? 0;
  const span = Math.max(1, (view.endMs ?? start) - start);
  const agg = aggregateTimeline(view.lanes, start, start + span, Math.min(240, Math.floor(width / 4)));
  const max = Math.max(1, ...agg.buckets.map((b) => b.model + b.tool));
  const plot: Plot = { left: 56, top: 52, width: width - 68, height: 180 };
  const f: Frame = {
    chart: 'timeline',
    title: `Timeline of ${view.lanes.length} agents (aggregated; critical path in red)`,
    width,
    height: plot.top + plot.height + 24,
  };
  const x = scale(0, span, plot.left, plot.left + plot.width);
  const y = scale(0, max, plot.top + plot.height, plot.top);
  let body = legend(8, 34, [
    ['agents in model calls', COLORS.model],
    ['agents in tool calls', COLORS.tool],
    ['critical path', COLORS.critical],
  ]);
  body += valueAxis(plot, max) + timeAxis(plot, span);
  const bw = plot.width / agg.buckets.length;
  agg.buckets.forEach((b, i) => {
    const bx = n(plot.left + i * bw);
    const hModel = plot.top + plot.height - y(b.model);
    const hTool = plot.top + plot.height - y(b.tool);
    if (hModel > 0)
      body += `<rect x="${bx}" y="${n(y(b.model))}" width="${n(bw)}" height="${n(hModel)}" fill="${COLORS.model}" data-bar="model"/>`;
    if (hTool > 0)
      body += `<rect x="${bx}" y="${n(y(b.model + b.tool))}" width="${n(bw)}" height="${n(hTool)}" fill="${COLORS.tool}" data-bar="tool"/>`;
  });
  body += criticalRow(view, start, x, plot.top - 10);
  return frame(f, body);
}
