/**
 * One arm against the solo baseline, paired by task: the mean difference in pass rate, its paired
 * bootstrap interval (widened to Student's t for few tasks), a test of "no difference" (exact
 * McNemar when every task has one trial per side, else the sign-flip permutation test; for one trial
 * each they agree), the minimum detectable effect, and cost and wall-clock ratios. Holm's adjustment and the verdict are added by the summary,
 * which sees all arms.
 */
import { clusterBootstrapMean } from '../stats/cluster-bootstrap.js';
import { mean } from '../stats/descriptive.js';
import { mcnemarExact } from '../stats/mcnemar.js';
import { minimumDetectableEffect } from '../stats/mde.js';
import {
  discordantCounts,
  oneTrialEach,
  type PairedTask,
  pairTasks,
  type TaskTally,
} from '../stats/paired.js';
import { signFlipTest } from '../stats/sign-flip.js';
import { tIntervalMean } from '../stats/t-interval.js';
import { orNull } from './arm-summary.js';
import type { EvalOptions } from './options.js';
import type { ArmSummary, Comparison, TestName } from './summary-types.js';

export type RawComparison = Omit<Comparison, 'pHolm' | 'significant' | 'verdict'> & { pairs: PairedTask[] };

function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : a / b;
}

export function compareWithSolo(
  arm: ArmSummary,
  armTasks: readonly TaskTally[],
  solo: ArmSummary,
  soloTasks: readonly TaskTally[],
  options: EvalOptions,
  seed: number,
): RawComparison {
  const { pairs, armOnlyTasks, soloOnlyTasks } = pairTasks(armTasks, soloTasks);
  const diffs = pairs.map((p) => p.diff);
  const discordant = discordantCounts(pairs);
  let test: TestName;
  let p: number;
  if (oneTrialEach(pairs)) {
    test = 'mcnemar-exact';
    p = mcnemarExact(discordant.armOnly, discordant.soloOnly);
  } else {
    const flip = signFlipTest(diffs, { seed });
    test = flip.method === 'exact' ? 'sign-flip-exact' : 'sign-flip-monte-carlo';
    p = flip.p;
  }
  const boot =
    pairs.length > 0
      ? clusterBootstrapMean(
          pairs.map((q) => ({ cluster: q.repo, value: q.diff })),
          { resamples: options.resamples, confidence: options.confidence, seed },
        )
      : null;
  const t = tIntervalMean(diffs, options.confidence);
  // Few paired tasks: the percentile bootstrap is too narrow, so each side takes the wider of it and t.
  const ci =
    !boot || pairs.length < 2
      ? null
      : pairs.length < options.smallN && t
        ? { lo: Math.min(boot.lo, t.lo), hi: Math.max(boot.hi, t.hi), method: 't-envelope' as const }
        : { lo: boot.lo, hi: boot.hi, method: 'cluster-bootstrap' as const };
  const mde = minimumDetectableEffect(diffs, { alpha: options.alpha, power: options.power });
  return {
    arm: arm.name,
    baseline: solo.name,
    pairedTasks: pairs.length,
    unpairedTasks: armOnlyTasks.length + soloOnlyTasks.length,
    armRate: orNull(mean(pairs.map((q) => q.arm))),
    soloRate: orNull(mean(pairs.map((q) => q.solo))),
    diff: orNull(mean(diffs)),
    ci,
    test,
    p,
    discordant,
    mde: mde.mde,
    mdeFloored: mde.floored,
    costRatio: ratio(arm.meanCostUsd, solo.meanCostUsd),
    wallRatio: ratio(arm.medianWallMs, solo.medianWallMs),
    pairs,
  };
}
