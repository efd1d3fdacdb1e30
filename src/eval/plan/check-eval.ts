/**
 * `colony plan --check-eval DIR`: `--check` over every recorded run of an eval directory
 * (trials.jsonl, arms.json), so the plan's error can be re-measured on any suite:
 *
 * - self: each run predicted from its own task graph at its own team size;
 * - from baseline: each non-baseline run predicted from the baseline arm's run of the same task and
 *   trial (a solo run forecasting the team), when arms.json names a baseline (`solo: true`, else the
 *   only arm of size 1).
 *
 * Per kind and arm: the median and largest absolute relative error of makespan and cost, the median
 * signed error (bias), and how often the measured value fell inside the predicted p10–p90.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArmsFile, parseTrialLines, type TrialRecord } from '../trial-record.js';
import { type CheckedNumber, type CheckReport, checkPlan } from './check.js';
import { type LoadedGraph, loadRunGraph, type RunReader } from './load-run.js';
import { quantile } from './monte-carlo.js';
import type { PlanOptions } from './plan.js';

export type CheckKind = 'self' | 'from-baseline';

export interface EvalCheckRow {
  kind: CheckKind;
  arm: string;
  task: string;
  trial: number;
  runId: string;
  fromRunId: string;
  /** The check, or why it could not be made (a run without tasks, one not in this store). */
  result: { ok: true; report: CheckReport } | { ok: false; error: string };
}

export interface ErrorStats {
  /** Checks with a measured value. */
  n: number;
  /** Median and largest |predicted − measured| / measured. */
  medianAbsRel: number | null;
  maxAbsRel: number | null;
  /** Median (predicted − measured) / measured: > 0 the plan predicts too much. */
  medianRel: number | null;
  /** Share of checks whose measured value lay inside p10–p90. */
  coverage: number | null;
}

export interface EvalCheckGroup {
  kind: CheckKind;
  arm: string;
  checks: number;
  failed: number;
  makespan: ErrorStats;
  /** The replay (CheckReport.scheduleRelError): the graph without the noise model; no band. */
  replay: ErrorStats;
  cost: ErrorStats;
}

export interface EvalCheckSummary {
  dir: string;
  baseline: string | null;
  rows: EvalCheckRow[];
  /** Per kind: every arm together (arm '*'), then each arm. */
  groups: EvalCheckGroup[];
}

export type EvalCheckResult = { ok: true; summary: EvalCheckSummary } | { ok: false; error: string };

function stats(values: ReadonlyArray<CheckedNumber | null>): ErrorStats {
  const measured = values.filter((v): v is CheckedNumber => v !== null && v.relError !== null);
  const rel = measured.map((v) => v.relError ?? 0);
  const abs = rel.map(Math.abs).sort((a, b) => a - b);
  const sorted = [...rel].sort((a, b) => a - b);
  const none = measured.length === 0;
  return {
    n: measured.length,
    medianAbsRel: none ? null : quantile(abs, 0.5),
    maxAbsRel: none ? null : (abs[abs.length - 1] ?? null),
    medianRel: none ? null : quantile(sorted, 0.5),
    coverage:
      none || measured.some((v) => v.inBand === null)
        ? null
        : measured.filter((v) => v.inBand).length / measured.length,
  };
}

function group(kind: CheckKind, arm: string, rows: readonly EvalCheckRow[]): EvalCheckGroup {
  const reports = rows.flatMap((r) => (r.result.ok ? [r.result.report] : []));
  return {
    kind,
    arm,
    checks: rows.length,
    failed: rows.length - reports.length,
    makespan: stats(reports.map((r) => r.makespanMs)),
    replay: stats(
      reports.map((r) => ({
        predicted: r.scheduleMs,
        band: { p10: r.scheduleMs, p50: r.scheduleMs, p90: r.scheduleMs },
        measured: r.makespanMs.measured,
        error: null,
        relError: r.scheduleRelError,
        inBand: null,
      })),
    ),
    cost: stats(reports.map((r) => r.costUsd)),
  };
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

export async function checkEvalDir(
  store: RunReader,
  dir: string,
  options: Pick<PlanOptions, 'seed' | 'samples' | 'sigma'>,
): Promise<EvalCheckResult> {
  const trialsText = await readText(join(dir, 'trials.jsonl'));
  if (trialsText === null) return { ok: false, error: `${dir} has no trials.jsonl (not an eval directory?)` };
  const { records } = parseTrialLines(trialsText);
  const armsText = await readText(join(dir, 'arms.json'));
  const arms = armsText === null ? null : parseArmsFile(armsText);
  const armList = arms?.ok ? arms.arms : [];
  const baseline =
    armList.find((a) => a.solo)?.name ??
    (armList.filter((a) => a.size === 1).length === 1
      ? (armList.find((a) => a.size === 1)?.name ?? null)
      : null);
  const withRun = records.filter((r): r is TrialRecord & { runId: string } => r.runId !== null);
  if (withRun.length === 0)
    return { ok: false, error: `${dir}/trials.jsonl records no runs (simulated trials?)` };

  const graphs = new Map<string, LoadedGraph>();
  const graphOf = async (runId: string): Promise<LoadedGraph> => {
    const known = graphs.get(runId);
    if (known) return known;
    const loaded = await loadRunGraph(store, runId, { finished: true, tasks: true });
    graphs.set(runId, loaded);
    return loaded;
  };
  const check = async (run: string, from: string): Promise<EvalCheckRow['result']> => {
    const target = await graphOf(run);
    if (!target.ok) return target;
    const source = await graphOf(from);
    if (!source.ok) return source;
    return checkPlan(target.graph, source.graph, options);
  };

  const rows: EvalCheckRow[] = [];
  for (const r of withRun) {
    const base = { arm: r.arm, task: r.task, trial: r.trial, runId: r.runId };
    rows.push({ kind: 'self', ...base, fromRunId: r.runId, result: await check(r.runId, r.runId) });
  }
  for (const r of withRun) {
    if (baseline === null || r.arm === baseline) continue;
    const from = withRun.find((b) => b.arm === baseline && b.task === r.task && b.trial === r.trial);
    if (!from) continue;
    const base = { arm: r.arm, task: r.task, trial: r.trial, runId: r.runId };
    rows.push({
      kind: 'from-baseline',
      ...base,
      fromRunId: from.runId,
      result: await check(r.runId, from.runId),
    });
  }
  const groups: EvalCheckGroup[] = [];
  for (const kind of ['self', 'from-baseline'] as const) {
    const ofKind = rows.filter((r) => r.kind === kind);
    if (ofKind.length === 0) continue;
    groups.push(group(kind, '*', ofKind));
    for (const arm of [...new Set(ofKind.map((r) => r.arm))])
      groups.push(
        group(
          kind,
          arm,
          ofKind.filter((r) => r.arm === arm),
        ),
      );
  }
  return { ok: true, summary: { dir, baseline, rows, groups } };
}
