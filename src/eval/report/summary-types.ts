/**
 * EvalSummary: everything `colony eval report` concludes from the trial records, as plain JSON-safe
 * data (no NaN or Infinity: "no data" is null). `--json` prints it; the HTML page draws it.
 * Rates are shares in 0..1; differences are in the same units (0.1 = 10 percentage points).
 */
import type { PassAtKRow } from '../stats/pass-at-k.js';
import type { SolvedPoint } from '../stats/solved-curve.js';
import type { EffectiveBudget, MatchedBudget } from '../trial-record.js';

export const EVAL_SUMMARY_VERSION = 1;

export interface RateInterval {
  lo: number;
  hi: number;
}

/** pass@k and pass^k with clustered bootstrap intervals (over the tasks with ≥ k trials). */
export type PassAtKWithCi = PassAtKRow & {
  passAtKCi: RateInterval | null;
  passHatKCi: RateInterval | null;
};

/**
 * How an interval was made: 'cluster-bootstrap' alone, or for few tasks (and at 0% or 100%) the wider
 * bound on each side of the bootstrap and a small-sample interval: Wilson's for a pass rate
 * ('wilson-envelope'), Student's t for a paired difference ('t-envelope').
 */
export type IntervalMethod = 'cluster-bootstrap' | 'wilson-envelope' | 't-envelope';

export interface ArmSummary {
  name: string;
  topology: string;
  size: number;
  solo: boolean;
  /**
   * The arm runs a `sim:` model in some role: a simulated agent, no model called, costs from made-up
   * prices. The report labels it "(simulated)" wherever it shows the arm.
   */
  simulated: boolean;
  /** The arm's other settings from arms.json, as written. */
  config: Record<string, unknown>;
  /** Graded trials (pass, fail, timeout); infra errors are counted apart. */
  trials: number;
  passes: number;
  timeouts: number;
  infraErrors: number;
  tasks: number;
  repos: number;
  /** Mean over tasks of each task's share of passing trials (every task weighs the same). */
  passRate: number | null;
  /** The interval shown: the clustered bootstrap, or for few tasks or 0%/100% its envelope with Wilson's. */
  interval: (RateInterval & { method: IntervalMethod }) | null;
  /** Wilson over tasks (each task counted once with its share of passes). */
  wilson: RateInterval | null;
  /** Percentile bootstrap, repositories then tasks resampled. */
  bootstrap: RateInterval | null;
  passAtK: PassAtKWithCi[];
  /** Mean score of a graded trial. */
  meanScore: number | null;
  /** Clustered bootstrap interval of the mean over tasks of each task's mean score. */
  scoreCi: RateInterval | null;
  /** Spent on every trial, infra errors included (the money is gone either way). */
  totalCostUsd: number;
  /** Mean cost of a graded trial. */
  meanCostUsd: number | null;
  /** Total spend / passes; null when nothing passed. */
  costPerSuccessUsd: number | null;
  /** Clustered bootstrap interval of Σ cost / Σ passes; hi null: unbounded (resamples without a pass). */
  costPerSuccessCi: { lo: number; hi: number | null } | null;
  /** The limits the arm ran under (arms.json's matched budget, lowered by the arm's own); {} unlimited. */
  budget: EffectiveBudget;
  medianWallMs: number | null;
  medianFirstGreenMs: number | null;
  tokens: { input: number; cachedInput: number; output: number };
  meanCriticalSteps: number | null;
  meanParallelism: number | null;
  merges: number;
  conflicts: number;
  /** Cumulative share of graded trials solved after each time. */
  solved: SolvedPoint[];
}

export type TestName = 'mcnemar-exact' | 'sign-flip-exact' | 'sign-flip-monte-carlo';

export interface Comparison {
  arm: string;
  baseline: string;
  /** Tasks both arms have graded trials of (the unit of every paired statistic). */
  pairedTasks: number;
  /** Tasks only one side has, left out of the comparison. */
  unpairedTasks: number;
  armRate: number | null;
  soloRate: number | null;
  /** Mean over paired tasks of (arm's share − solo's share). */
  diff: number | null;
  /** Paired percentile bootstrap interval of diff (repositories then tasks resampled); for few tasks its envelope with the t interval. */
  ci: (RateInterval & { method: IntervalMethod }) | null;
  test: TestName;
  p: number;
  /** Holm-adjusted across all arms compared with solo. */
  pHolm: number;
  significant: boolean;
  discordant: { armOnly: number; soloOnly: number };
  /** Smallest true difference this sample detects with 80% power at alpha 0.05 (± in pass-rate units). */
  mde: number | null;
  mdeFloored: boolean;
  /** Arm's mean cost per trial / solo's. */
  costRatio: number | null;
  /** Arm's median wall-clock / solo's. */
  wallRatio: number | null;
  /** What the numbers mean, in one or two plain sentences. */
  verdict: string;
}

export type MatrixResult = 'win' | 'loss' | 'tie' | 'missing';

export interface MatrixRow {
  arm: string;
  cells: { result: MatrixResult; arm: number | null; solo: number | null }[];
}

/** One tag of the suite (task.json `tags`): each arm's pass rate on the tasks that carry it. */
export interface TagBreakdown {
  tag: string;
  /** Tasks with this tag that any arm graded. */
  tasks: number;
  arms: {
    arm: string;
    tasks: number;
    passRate: number | null;
    interval: (RateInterval & { method: IntervalMethod }) | null;
  }[];
}

export interface EvalSummary {
  v: typeof EVAL_SUMMARY_VERSION;
  confidence: number;
  alpha: number;
  power: number;
  seed: number;
  resamples: number;
  /** Below this many tasks intervals are widened to a small-sample interval (see IntervalMethod). */
  smallN: number;
  baseline: string | null;
  arms: ArmSummary[];
  comparisons: Comparison[];
  /**
   * Arm-vs-arm comparisons asked for (`--compare A,B`: A against B, paired by task as against solo),
   * Holm-adjusted across these comparisons only (a family of their own).
   */
  pairwise: Comparison[];
  /** arms.json's matched budget (every arm ran under it), or null. */
  budget: MatchedBudget | null;
  /** Per tag (from DIR/tasks.json, written by eval run); empty when it is absent. */
  byTag: TagBreakdown[];
  /** Arms on the (mean cost per trial, pass rate) Pareto frontier, cheapest first. */
  pareto: string[];
  /** Per task (columns, sorted by repository) and non-solo arm (rows): win / loss / tie against solo. */
  matrix: { tasks: { task: string; repo: string }[]; rows: MatrixRow[] };
  /** The answer in plain sentences. */
  headline: string[];
  /** Problems with the data (bad lines, unknown arms, no baseline…). */
  warnings: string[];
}
