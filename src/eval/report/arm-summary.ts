/** One arm's numbers: pass rate with its interval, pass@k, cost, wall-clock, tokens, team metrics. */
import { clusterBootstrapMean } from '../stats/cluster-bootstrap.js';
import { costPerSuccess } from '../stats/cost.js';
import { mean, median } from '../stats/descriptive.js';
import { suitePassAtK } from '../stats/pass-at-k.js';
import { solvedCurve } from '../stats/solved-curve.js';
import { wilsonInterval } from '../stats/wilson.js';
import type { Arm, TrialRecord } from '../trial-record.js';
import type { EvalOptions } from './options.js';
import type { ArmSummary } from './summary-types.js';
import { tallyArm } from './tally.js';

/** NaN (no data) as null, so the summary stays JSON-safe. */
export function orNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

export function summarizeArm(
  arm: Arm,
  records: readonly TrialRecord[],
  options: EvalOptions,
  seed: number,
): ArmSummary {
  const { name, topology, size, solo, ...config } = arm;
  const { graded, infraErrors, tasks } = tallyArm(records);
  const taskRates = tasks.map((t) => ({ cluster: t.repo, value: t.passes / t.trials }));
  const passRate = orNull(mean(taskRates.map((t) => t.value)));
  const wilson =
    tasks.length > 0
      ? wilsonInterval(passRate === null ? 0 : passRate * tasks.length, tasks.length, options.confidence)
      : null;
  const boot =
    tasks.length > 0
      ? clusterBootstrapMean(taskRates, {
          resamples: options.resamples,
          confidence: options.confidence,
          seed,
        })
      : null;
  const bootstrap = boot ? { lo: boot.lo, hi: boot.hi } : null;
  // The bootstrap collapses to a point at 0% or 100% and is too narrow for few tasks; Wilson's
  // interval ignores repositories. There, each side takes the wider bound of the two.
  const small = tasks.length < options.smallN || passRate === 0 || passRate === 1;
  const interval =
    wilson && bootstrap
      ? small
        ? {
            lo: Math.min(wilson.lo, bootstrap.lo),
            hi: Math.max(wilson.hi, bootstrap.hi),
            method: 'wilson-envelope' as const,
          }
        : { ...bootstrap, method: 'cluster-bootstrap' as const }
      : null;
  const passes = graded.filter((r) => r.outcome === 'pass').length;
  const totalCostUsd = records.reduce((s, r) => s + r.costUsd, 0);
  const firstGreens = graded.flatMap((r) => (r.firstGreenMs === null ? [] : [r.firstGreenMs]));
  return {
    name,
    topology,
    size,
    solo: solo === true,
    config,
    trials: graded.length,
    passes,
    timeouts: graded.filter((r) => r.outcome === 'timeout').length,
    infraErrors: infraErrors.length,
    tasks: tasks.length,
    repos: new Set(tasks.map((t) => t.repo)).size,
    passRate,
    interval,
    wilson,
    bootstrap,
    passAtK: suitePassAtK(
      tasks.map((t) => ({ trials: t.trials, passes: t.passes })),
      options.ks,
    ),
    meanScore: orNull(mean(graded.map((r) => r.score))),
    totalCostUsd,
    meanCostUsd: orNull(mean(graded.map((r) => r.costUsd))),
    costPerSuccessUsd: costPerSuccess(totalCostUsd, passes),
    medianWallMs: orNull(median(graded.map((r) => r.wallMs))),
    medianFirstGreenMs: orNull(median(firstGreens)),
    tokens: {
      input: records.reduce((s, r) => s + r.tokens.input, 0),
      cachedInput: records.reduce((s, r) => s + r.tokens.cachedInput, 0),
      output: records.reduce((s, r) => s + r.tokens.output, 0),
    },
    meanCriticalSteps: orNull(mean(graded.map((r) => r.criticalSteps))),
    meanParallelism: orNull(mean(graded.map((r) => r.parallelism))),
    merges: records.reduce((s, r) => s + r.merges, 0),
    conflicts: records.reduce((s, r) => s + r.conflicts, 0),
    solved: solvedCurve(graded.map((r) => (r.outcome === 'pass' ? (r.firstGreenMs ?? r.wallMs) : null))),
  };
}
