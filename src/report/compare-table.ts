/** Runs side by side in the terminal: one column per run, one row per measure. */
import { formatCost, formatCount, formatDuration } from '../view/format.js';
import type { RunFacts } from './run-metrics.js';

const dash = (v: number | null, f: (v: number) => string = String) => (v === null ? '—' : f(v));
const percent = (v: number) => `${(v * 100).toFixed(1)}%`;

const ROWS: ReadonlyArray<[string, (r: RunFacts) => string]> = [
  ['topology', (r) => r.topology ?? '—'],
  ['status', (r) => r.status],
  ['model', (r) => r.model ?? '—'],
  ['agents', (r) => String(r.agents)],
  ['wall-clock', (r) => formatDuration(r.wallClockMs)],
  ['cost', (r) => formatCost(r.costUsd, r.steps)],
  ['tokens uncached input', (r) => formatCount(r.tokens.input)],
  ['tokens cached input', (r) => formatCount(r.tokens.cachedInput)],
  ['tokens cache writes', (r) => formatCount(r.tokens.cacheWrite)],
  ['tokens output', (r) => formatCount(r.tokens.output)],
  ['steps', (r) => String(r.steps)],
  ['CriticalSteps', (r) => dash(r.metrics.criticalSteps)],
  ['parallelism', (r) => dash(r.metrics.parallelism, (v) => v.toFixed(2))],
  ['coordination share of input', (r) => dash(r.metrics.coordinationShareOfInput, percent)],
  ['coordination share of uncached input', (r) => dash(r.metrics.coordinationShareOfUncachedInput, percent)],
  ['critical path (view)', (r) => `${r.criticalPath.steps} steps`],
  ['merges landed/rejected', (r) => `${r.merges.landed}/${r.merges.rejected}`],
  ['verify', (r) => (r.verify ? (r.verify.passed ? 'passed' : `failed (${r.verify.exitCode})`) : '—')],
];

export function compareLines(runs: readonly RunFacts[]): string[] {
  const header = ['', ...runs.map((r) => r.runId)];
  const body = ROWS.map(([label, get]) => [label, ...runs.map(get)]);
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...body.map(line)];
}
