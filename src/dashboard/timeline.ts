/// <reference lib="dom" />
/**
 * The Gantt timeline on a canvas: one row per agent, model calls / tool calls / waits as bars, the
 * critical path's segments (the view model's, as in `colony report`) as red bands. Rows are
 * virtualised (only rows in view are drawn) and segments arrive pre-aggregated from the server, so
 * 1,000 agents draw in a few milliseconds.
 */
import type { TimelineView } from '../view/compact-types.js';
import { COLORS as PALETTE } from '../view/svg/palette.js';

const ROW = 14;
const LABEL = 96;
const AXIS = 18;
// By segment kind (SEG_MODEL, SEG_TOOL, SEG_WAIT, SEG_ERROR): the report's colours.
const COLORS = [PALETTE.model, PALETTE.tool, PALETTE.wait, PALETTE.error];

export interface TimelineChart {
  el: HTMLElement;
  update(view: TimelineView): void;
}

export function timelineChart(maxHeight = 340): TimelineChart {
  const el = document.createElement('div');
  el.className = 'timeline';
  const scroller = document.createElement('div');
  scroller.className = 'timeline-scroll';
  scroller.style.maxHeight = `${maxHeight}px`;
  const spacer = document.createElement('div');
  const canvas = document.createElement('canvas');
  canvas.className = 'timeline-canvas';
  scroller.append(spacer);
  el.append(canvas, scroller);
  let view: TimelineView | null = null;
  /** Critical segments by agent, as [startOffsetMs, endOffsetMs]. */
  let critical = new Map<string, Array<[number, number]>>();
  let frame = 0;

  const draw = () => {
    frame = 0;
    if (!view) return;
    const dpr = window.devicePixelRatio || 1;
    const width = el.clientWidth || 800;
    const height = Math.min(maxHeight, view.rows.length * ROW + AXIS) || AXIS;
    spacer.style.height = `${view.rows.length * ROW + AXIS}px`;
    scroller.style.height = `${height}px`;
    // Resizing a canvas reallocates it: only when the size really changed (not on every scroll).
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
    }
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const style = getComputedStyle(el);
    const fg = style.getPropertyValue('--fg').trim() || '#888';
    const muted = style.getPropertyValue('--muted').trim() || '#888';
    const crit = style.getPropertyValue('--crit').trim() || '#e5484d';
    ctx.clearRect(0, 0, width, height);
    const span = Math.max(1, view.endMs - view.startMs);
    const plotW = width - LABEL - 8;
    const x = (offset: number) => LABEL + (offset / span) * plotW;
    const top = scroller.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW));
    const last = Math.min(view.rows.length, first + Math.ceil(height / ROW) + 1);
    ctx.font = '11px ui-sans-serif, system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (let i = first; i < last; i += 1) {
      const row = view.rows[i];
      if (!row) continue;
      const y = AXIS + i * ROW - top;
      const bands = critical.get(row.agent);
      const isCrit = bands !== undefined;
      ctx.fillStyle = `${crit}33`;
      for (const [from, to] of bands ?? []) ctx.fillRect(x(from), y, Math.max(2, x(to) - x(from)), ROW);
      ctx.fillStyle = isCrit ? crit : muted;
      ctx.fillText(row.agent.length > 14 ? `${row.agent.slice(0, 13)}…` : row.agent, 4, y + ROW / 2);
      const s = row.segs;
      for (let j = 0; j + 2 < s.length; j += 3) {
        const x0 = x(s[j] ?? 0);
        const w = Math.max(1, ((s[j + 1] ?? 0) / span) * plotW);
        ctx.fillStyle = isCrit && s[j + 2] === 0 ? crit : (COLORS[s[j + 2] ?? 0] ?? fg);
        ctx.fillRect(x0, y + 2, w, ROW - 4);
      }
    }
    // Time axis on top (drawn last so rows scroll under it).
    ctx.fillStyle = style.getPropertyValue('--panel').trim() || '#fff';
    ctx.fillRect(0, 0, width, AXIS);
    ctx.fillStyle = muted;
    for (let t = 0; t <= 4; t += 1) {
      const px = LABEL + (t / 4) * plotW;
      ctx.fillRect(px, AXIS - 4, 1, 4);
      const secs = (span * t) / 4 / 1000;
      const digits = span < 4000 ? 2 : span < 40_000 ? 1 : 0;
      const label = secs >= 120 ? `${Math.round(secs / 60)}m` : `${secs.toFixed(digits)}s`;
      ctx.textAlign = t === 4 ? 'right' : t === 0 ? 'left' : 'center';
      ctx.fillText(label, px, AXIS / 2);
    }
    ctx.textAlign = 'left';
  };

  scroller.addEventListener('scroll', () => {
    frame ||= requestAnimationFrame(draw);
  });
  window.addEventListener('resize', () => {
    frame ||= requestAnimationFrame(draw);
  });
  return {
    el,
    update(next) {
      view = next;
      critical = new Map();
      for (const s of next.critical.segments) {
        const list = critical.get(s.agent) ?? [];
        list.push([s.startMs - next.startMs, s.endMs - next.startMs]);
        critical.set(s.agent, list);
      }
      frame ||= requestAnimationFrame(draw);
    },
  };
}
