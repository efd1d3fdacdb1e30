/** The report's "how to read this" notes: the same words on the page and in docs/eval.md's spirit. */
import type { EvalSummary } from './summary-types.js';

export function howToRead(s: EvalSummary): string[] {
  const level = `${Math.round(s.confidence * 100)}%`;
  return [
    `Pass rate: the mean over tasks of each task's share of passing trials (every task weighs the same). Time-outs count as failures; infra errors (the harness failed, not the team) are left out and counted apart.`,
    `Intervals (${level}): a percentile bootstrap that resamples repositories, then tasks within them (tasks of one repository are not independent). With fewer than ${s.smallN} tasks, or a pass rate of 0% or 100%, where the bootstrap is too narrow, each bound is the wider of the bootstrap's and Wilson's score interval (over tasks). An interval is where the arm's pass rate on tasks like these plausibly lies, not a range of outcomes of single runs; with few repositories it speaks for tasks of these repositories more than for others.`,
    `Against solo: tasks are paired; the difference is the mean over paired tasks of (arm's share − solo's share), with a paired bootstrap interval (with fewer than ${s.smallN} paired tasks, widened to Student's t interval where that is wider). The p-value is exact McNemar when every task had one trial per arm, otherwise a sign-flip permutation test. Holm's adjustment across the ${s.comparisons.length} comparison(s) keeps the chance of any false "significant" at ${s.alpha} or less.`,
    `"No significant difference" is not "no difference": the minimum detectable effect (MDE) is the smallest true difference this many tasks would detect with ${Math.round(s.power * 100)}% power at alpha ${s.alpha} (normal approximation, (z₀.₉₇₅ + z₀.₈) · SD of the per-task differences / √tasks). Smaller effects may exist and go unseen; more tasks shrink the MDE roughly as 1/√tasks.`,
    `pass@k: the chance that at least one of k trials passes (unbiased estimator of Chen et al. 2021); pass^k: the chance that all k pass. Cost per success: everything spent (infra errors included) / passing trials. The Pareto frontier holds the arms that no other arm beats on both mean cost of a trial and pass rate.`,
    `Resampling is seeded (seed ${s.seed}, ${s.resamples} resamples): the same records give the same report.`,
    ...(s.arms.some((a) => a.simulated)
      ? [
          `An arm marked "(simulated)" ran a sim: model (docs/eval.md): a simulated agent with a chance of success given in arms.json, no model called. Its pass rate is that chance drawn again, its cost the sim: model's made-up prices; it checks the harness and these statistics, and says nothing about a real model or team.`,
        ]
      : []),
  ];
}
