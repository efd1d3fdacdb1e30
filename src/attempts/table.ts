/** The comparison `colony run --attempts N` prints: one row per attempt, best first, then notes. */
import { terminalLine } from '../core/terminal-text.js';
import { formatUsd } from '../view/format.js';
import type { AttemptOutcome } from './rank.js';

const HEADER = [
  'attempt',
  'run id',
  'status',
  'verify',
  'judge',
  'cost',
  'tokens',
  'CriticalSteps',
  'branch',
];

export function attemptsTable(ranked: readonly AttemptOutcome[], winner: AttemptOutcome | null): string {
  const rows = ranked.map((a) => [
    `${a.index}${a === winner ? ' (winner)' : ''}`,
    a.runId,
    a.status,
    a.verify === null ? '—' : a.verify ? 'passed' : 'failed',
    a.judge === null ? '—' : a.judge.score === null ? 'none' : String(a.judge.score),
    formatUsd(a.costUsd),
    String(a.tokens),
    String(a.criticalSteps),
    a.branch ?? '—',
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const notes = ranked.flatMap((a) => [
    ...(a.judge?.reason ? [`attempt ${a.index}: judge scored nothing: ${a.judge.reason}`] : []),
    ...(a.branch === null && a.reason ? [`attempt ${a.index}: ${a.reason}`] : []),
  ]);
  return [line(HEADER), ...rows.map(line), ...notes].map(terminalLine).join('\n');
}
