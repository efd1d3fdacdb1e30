/**
 * What the eval charts share beyond src/view/svg (scales, ticks, frames): a colour per arm, the
 * pass-rate (0–100%) axis, a horizontal value axis and point labels.
 */
import { type Plot, scale } from '../../view/svg/axes.js';
import { COLORS } from '../../view/svg/palette.js';
import { esc, n } from '../../view/svg/xml.js';

// Tableau 10: distinguishable categorical colours, in a fixed order so an arm keeps its colour.
const ARM_COLORS = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
] as const;

export function armColor(index: number): string {
  return ARM_COLORS[index % ARM_COLORS.length] ?? '#888';
}

export const PASS_TICKS = [0, 0.25, 0.5, 0.75, 1];

/** The y axis of a share, 0% at the bottom, 100% at the top. */
export function shareAxis(plot: Plot, label: string): { y: (v: number) => number; svg: string } {
  const y = scale(0, 1, plot.top + plot.height, plot.top);
  let svg = '';
  for (const v of PASS_TICKS) {
    const yv = n(y(v));
    svg += `<line x1="${plot.left}" y1="${yv}" x2="${plot.left + plot.width}" y2="${yv}" stroke="${COLORS.grid}"/>`;
    svg += `<text x="${plot.left - 4}" y="${yv}" dy="3" text-anchor="end" fill="${COLORS.axis}">${v * 100}%</text>`;
  }
  svg += `<text transform="translate(12 ${n(plot.top + plot.height / 2)}) rotate(-90)" text-anchor="middle" fill="${COLORS.axis}">${esc(label)}</text>`;
  return { y, svg };
}

/** A horizontal axis at the bottom of the plot, ticks at `ticks`, with a label under it. */
export function bottomAxis(
  plot: Plot,
  x: (v: number) => number,
  ticks: readonly number[],
  format: (v: number) => string,
  label: string,
): string {
  const y = plot.top + plot.height;
  let svg = `<line x1="${plot.left}" y1="${y}" x2="${plot.left + plot.width}" y2="${y}" stroke="${COLORS.axis}"/>`;
  for (const t of ticks) {
    const xt = n(x(t));
    svg += `<line x1="${xt}" y1="${plot.top}" x2="${xt}" y2="${y}" stroke="${COLORS.grid}"/>`;
    svg += `<text x="${xt}" y="${y + 13}" text-anchor="middle" fill="${COLORS.axis}">${esc(format(t))}</text>`;
  }
  svg += `<text x="${n(plot.left + plot.width / 2)}" y="${y + 28}" text-anchor="middle" fill="${COLORS.axis}">${esc(label)}</text>`;
  return svg;
}

/** A point with a vertical interval whisker and a hover title, labelled `label` (default: the series). */
export function pointWithInterval(
  x: number,
  y: number,
  lo: number | null,
  hi: number | null,
  color: string,
  title: string,
  series: string,
  /** Put the label left of the point (near the plot's right edge, where it would be cut off). */
  labelLeft = false,
  label = series,
): string {
  const whisker =
    lo !== null && hi !== null
      ? `<line x1="${n(x)}" y1="${n(lo)}" x2="${n(x)}" y2="${n(hi)}" stroke="${color}" stroke-width="2" data-interval="${esc(series)}"/>` +
        `<line x1="${n(x - 4)}" y1="${n(lo)}" x2="${n(x + 4)}" y2="${n(lo)}" stroke="${color}"/><line x1="${n(x - 4)}" y1="${n(hi)}" x2="${n(x + 4)}" y2="${n(hi)}" stroke="${color}"/>`
      : '';
  return `<g data-series="${esc(series)}">${whisker}<circle cx="${n(x)}" cy="${n(y)}" r="4.5" fill="${color}" stroke="#fff"><title>${esc(title)}</title></circle><text x="${n(labelLeft ? x - 7 : x + 7)}" y="${n(y - 6)}"${labelLeft ? ' text-anchor="end"' : ''} fill="#333">${esc(label)}</text></g>`;
}
