/** Reads an eval directory, summarises it and writes the HTML page (errors as data). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { evalPage } from './eval-page.js';
import type { EvalOptions } from './options.js';
import { issueLines, readEvalDir } from './read-eval-dir.js';
import { summarizeEval } from './summarize.js';
import type { EvalSummary } from './summary-types.js';

export interface EvalReport {
  summary: EvalSummary;
  /** The bad trial lines, one readable line each (also in summary.warnings). */
  issues: string[];
}

export function evalReport(
  dir: string,
  options: Partial<EvalOptions> = {},
): { ok: true; value: EvalReport } | { ok: false; error: string } {
  const read = readEvalDir(dir);
  if (!read.ok) return read;
  const { arms, records, issues, budget, tags } = read.value;
  const names = new Set(arms.map((a) => a.name));
  for (const [a, b] of options.compare ?? []) {
    const unknown = [a, b].filter((n) => !names.has(n));
    if (unknown.length > 0)
      return {
        ok: false,
        error: `--compare ${a},${b}: no arm ${unknown.map((n) => `"${n}"`).join(' or ')} in arms.json (arms: ${[...names].join(', ')})`,
      };
    if (a === b) return { ok: false, error: `--compare ${a},${b}: compare two different arms` };
  }
  const lines = issueLines(issues);
  const warnings = issues.length
    ? [`${issues.length} line(s) of trials.jsonl were not valid trial records and are left out`, ...lines]
    : [];
  warnings.push(...read.value.warnings);
  if (records.length === 0) warnings.push('trials.jsonl holds no valid trial record');
  const summary = summarizeEval(records, arms, options, warnings, {
    budget,
    ...(tags ? { tags } : {}),
  });
  return { ok: true, value: { summary, issues: lines } };
}

export function writeEvalPage(
  summary: EvalSummary,
  source: string,
  file: string,
): { ok: true; value: string } | { ok: false; error: string } {
  const out = resolve(file);
  try {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, evalPage(summary, source));
    return { ok: true, value: out };
  } catch (err) {
    return { ok: false, error: `cannot write the report to ${out}: ${(err as Error).message}` };
  }
}
