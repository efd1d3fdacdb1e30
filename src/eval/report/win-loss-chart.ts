/**
 * The per-task win/loss matrix: one row per arm compared with solo, one column per task (grouped by
 * repository): green where the arm passed more of the task's trials than solo, red fewer, grey the
 * same, blank not compared. Hover a cell for its numbers.
 */
import { COLORS } from '../../view/svg/palette.js';
import { empty, esc, type Frame, frame, n } from '../../view/svg/xml.js';
import { pct } from './format.js';
import type { EvalChartOptions } from './pass-rate-chart.js';
import { labelOf } from './simulated.js';
import type { EvalSummary, MatrixResult } from './summary-types.js';

const CELL: Record<MatrixResult, string> = {
  win: COLORS.landed,
  loss: COLORS.rejected,
  tie: '#c9ccd1',
  missing: '#fff',
};

export function renderWinLossChart(summary: EvalSummary, options: EvalChartOptions = {}): string {
  const { tasks, rows } = summary.matrix;
  // Row label: the arm and its wins–losses, e.g. "peers-4 12–3".
  const labels = rows.map((r) => {
    const wins = r.cells.filter((c) => c.result === 'win').length;
    const losses = r.cells.filter((c) => c.result === 'loss').length;
    return `${labelOf(summary.arms, r.arm)} ${wins}–${losses}`;
  });
  const labelWidth = 12 + 6.5 * Math.max(4, ...labels.map((l) => l.length));
  const maxWidth = options.width ?? 720;
  const cell = Math.max(
    3,
    Math.min(16, Math.floor((maxWidth - labelWidth - 16) / Math.max(1, tasks.length))),
  );
  const width = Math.max(maxWidth, labelWidth + cell * tasks.length + 16);
  const top = 52;
  const rowH = 16; // rows stay tall enough for their label however narrow the columns get
  const f: Frame = {
    chart: 'win-loss',
    title: `Per task vs ${summary.baseline ?? 'solo'}: win (green), loss (red), tie (grey)`,
    width,
    height: top + rowH * Math.max(1, rows.length) + 16,
  };
  if (rows.length === 0 || tasks.length === 0) return empty(f, 'no arm compared with a solo baseline');
  let body = '';
  // Repository bands above the columns, so clustered tasks read as groups.
  let start = 0;
  tasks.forEach((t, i) => {
    const next = tasks[i + 1];
    if (next && next.repo === t.repo) return;
    const x0 = labelWidth + start * cell;
    const w = (i - start + 1) * cell;
    body += `<rect x="${n(x0)}" y="${top - 14}" width="${n(w - 1)}" height="10" fill="${i % 2 ? '#e8edf3' : '#d5dde8'}"><title>${esc(`${t.repo}: ${i - start + 1} tasks`)}</title></rect>`;
    if (w > 40)
      body += `<text x="${n(x0 + 2)}" y="${top - 18}" fill="${COLORS.axis}" font-size="9">${esc(t.repo.slice(0, Math.floor(w / 5.5)))}</text>`;
    start = i + 1;
  });
  rows.forEach((row, r) => {
    const y = top + r * rowH;
    body += `<text x="${n(labelWidth - 6)}" y="${n(y + rowH / 2 + 3)}" text-anchor="end" fill="#333">${esc(labels[r] ?? row.arm)}</text>`;
    row.cells.forEach((c, i) => {
      const task = tasks[i];
      const tip = `${task?.task ?? ''} (${task?.repo ?? ''}): ${row.arm} ${pct(c.arm)} vs ${summary.baseline ?? 'solo'} ${pct(c.solo)} → ${c.result}`;
      body += `<rect x="${n(labelWidth + i * cell)}" y="${n(y)}" width="${n(cell - 1)}" height="${rowH - 2}" fill="${CELL[c.result]}" stroke="${c.result === 'missing' ? '#ddd' : 'none'}" data-result="${c.result}"><title>${esc(tip)}</title></rect>`;
    });
  });
  return frame(f, body);
}
