/** One arm's numbers: pass rate with its interval, pass@k, cost, wall-clock, tokens, team metrics. */
import { clusterBootstrapMean } from '../stats/cluster-bootstrap.js';
import { clusterBootstrapStat } from '../stats/cluster-bootstrap-stat.js';
import { costPerSuccess } from '../stats/cost.js';
import { mean, median } from '../stats/descriptive.js';
import type { TaskTally } from '../stats/paired.js';
import { passAtK, passHatK, suitePassAtK } from '../stats/pass-at-k.js';
import { solvedCurve } from '../stats/solved-curve.js';
import { wilsonInterval } from '../stats/wilson.js';
import type { Arm, EffectiveBudget, TrialRecord } from '../trial-record.js';
import type { EvalOptions } from './options.js';
import { armIsSimulated } from './simulated.js';
import type { ArmSummary, PassAtKWithCi, RateInterval } from './summary-types.js';
import { tallyArm } from './tally.js';

/** NaN (no data) as null, so the summary stays JSON-safe. */
export function orNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

type Boot = { resamples: number; confidence: number; seed: number };

function meanCi(units: { cluster: string; value: number }[], boot: Boot): RateInterval | null {
  if (units.length === 0) return null;
  const b = clusterBootstrapMean(units, boot);
  return { lo: b.lo, hi: b.hi };
}

/** pass@k and pass^k with clustered bootstrap intervals over the tasks that have ≥ k trials. */
function passAtKWithCi(
  tasks: readonly TaskTally[],
  options: EvalOptions,
  boot: Boot,
  passRateCi: RateInterval | null,
): PassAtKWithCi[] {
  return suitePassAtK(tasks, options.ks).map((row) => {
    // k = 1: both are each task's share of passes, whose bootstrap the pass rate already made.
    if (row.k === 1) return { ...row, passAtKCi: passRateCi, passHatKCi: passRateCi };
    const usable = tasks.filter((t) => t.trials >= row.k);
    const unit = (f: (n: number, c: number, k: number) => number) =>
      usable.map((t) => ({ cluster: t.repo, value: f(t.trials, t.passes, row.k) }));
    return {
      ...row,
      passAtKCi: meanCi(unit(passAtK), { ...boot, seed: boot.seed + 10 * row.k }),
      passHatKCi: meanCi(unit(passHatK), { ...boot, seed: boot.seed + 10 * row.k + 1 }),
    };
  });
}

/**
 * Cost per success with its interval: Σ cost / Σ passes over the tasks (a ratio estimator, every
 * trial's cost counted, infra errors too), resampled by repository then task.
 */
function costPerSuccessCi(records: readonly TrialRecord[], boot: Boot): ArmSummary['costPerSuccessCi'] {
  const byTask = new Map<string, { cluster: string; value: { cost: number; passes: number } }>();
  for (const r of records) {
    const u = byTask.get(r.task) ?? { cluster: r.repo, value: { cost: 0, passes: 0 } };
    u.value.cost += r.costUsd;
    if (r.outcome === 'pass') u.value.passes++;
    byTask.set(r.task, u);
  }
  if (byTask.size === 0) return null;
  const ci = clusterBootstrapStat(
    [...byTask.values()],
    (vs) => {
      let cost = 0;
      let passes = 0;
      for (const v of vs) {
        cost += v.cost;
        passes += v.passes;
      }
      return cost / passes;
    },
    { ...boot, seed: boot.seed + 7 },
  );
  return ci.lo === null ? null : { lo: ci.lo, hi: ci.hi };
}

export function summarizeArm(
  arm: Arm,
  records: readonly TrialRecord[],
  options: EvalOptions,
  seed: number,
  budget: EffectiveBudget = {},
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
  const bopt: Boot = { resamples: options.resamples, confidence: options.confidence, seed };
  const taskScores = new Map<string, { cluster: string; scores: number[] }>();
  for (const r of graded) {
    const t = taskScores.get(r.task) ?? { cluster: r.repo, scores: [] };
    t.scores.push(r.score);
    taskScores.set(r.task, t);
  }
  const firstGreens = graded.flatMap((r) => (r.firstGreenMs === null ? [] : [r.firstGreenMs]));
  return {
    name,
    topology,
    size,
    solo: solo === true,
    simulated: armIsSimulated(arm),
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
    passAtK: passAtKWithCi(tasks, options, bopt, bootstrap),
    meanScore: orNull(mean(graded.map((r) => r.score))),
    scoreCi: meanCi(
      [...taskScores.values()].map((t) => ({ cluster: t.cluster, value: mean(t.scores) })),
      { ...bopt, seed: seed + 3 },
    ),
    totalCostUsd,
    meanCostUsd: orNull(mean(graded.map((r) => r.costUsd))),
    costPerSuccessUsd: costPerSuccess(totalCostUsd, passes),
    costPerSuccessCi: passes > 0 ? costPerSuccessCi(records, bopt) : null,
    budget,
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
