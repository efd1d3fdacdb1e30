/**
 * summarizeEval(records, arms) → EvalSummary: per-arm statistics, each arm against the solo baseline
 * with Holm's adjustment across arms, the cost/pass-rate Pareto frontier, the win/loss matrix and the
 * answer in plain sentences. Pure and deterministic for a given options.seed.
 */

import { formatUsd } from '../../view/format.js';
import { holmAdjust } from '../stats/holm.js';
import { paretoFrontier } from '../stats/pareto.js';
import {
  type Arm,
  crossCheck,
  effectiveBudget,
  type MatchedBudget,
  type TrialRecord,
} from '../trial-record.js';
import { summarizeArm } from './arm-summary.js';
import { compareWithSolo, type RawComparison } from './comparison.js';
import { pct } from './format.js';
import { DEFAULT_EVAL_OPTIONS, type EvalOptions } from './options.js';
import { labelOf, simulatedHeadline } from './simulated.js';
import {
  type ArmSummary,
  type Comparison,
  EVAL_SUMMARY_VERSION,
  type EvalSummary,
  type MatrixRow,
  type TagBreakdown,
} from './summary-types.js';
import { byArm, tallyArm } from './tally.js';
import { verdictText } from './verdict.js';

/** The solo baseline: the arm marked solo, else the only arm of size 1 (said in a warning). */
function findBaseline(arms: readonly Arm[], warnings: string[]): Arm | null {
  const marked = arms.find((a) => a.solo === true);
  if (marked) return marked;
  const singles = arms.filter((a) => a.size === 1);
  if (singles.length === 1 && singles[0] && arms.length > 1) {
    warnings.push(
      `no arm is marked "solo": true; "${singles[0].name}" (the only arm of size 1) is the baseline`,
    );
    return singles[0];
  }
  if (arms.length > 1)
    warnings.push('no arm is marked "solo": true in arms.json, so no arm is compared with a baseline');
  return null;
}

/** Every task's repository is the first one recorded for it (crossCheck warns about the others). */
function oneRepoPerTask(records: readonly TrialRecord[]): TrialRecord[] {
  const repoOf = new Map<string, string>();
  for (const r of records) if (!repoOf.has(r.task)) repoOf.set(r.task, r.repo);
  return records.map((r) =>
    repoOf.get(r.task) === r.repo ? r : { ...r, repo: repoOf.get(r.task) ?? r.repo },
  );
}

function matrix(
  comparisons: readonly RawComparison[],
  records: readonly TrialRecord[],
): EvalSummary['matrix'] {
  const taskRepo = new Map<string, string>();
  for (const r of records) if (!taskRepo.has(r.task)) taskRepo.set(r.task, r.repo);
  const tasks = [...taskRepo]
    .map(([task, repo]) => ({ task, repo }))
    .sort((a, b) => a.repo.localeCompare(b.repo) || a.task.localeCompare(b.task));
  const rows: MatrixRow[] = comparisons.map((c) => {
    const byTask = new Map(c.pairs.map((p) => [p.task, p]));
    return {
      arm: c.arm,
      cells: tasks.map(({ task }) => {
        const p = byTask.get(task);
        if (!p) return { result: 'missing' as const, arm: null, solo: null };
        const result = p.diff > 0 ? 'win' : p.diff < 0 ? 'loss' : 'tie';
        return { result, arm: p.arm, solo: p.solo };
      }),
    };
  });
  return { tasks, rows };
}

function headline(
  arms: readonly ArmSummary[],
  comparisons: readonly Comparison[],
  pareto: string[],
): string[] {
  const simulated = simulatedHeadline(arms);
  const lines = [...(simulated ? [simulated] : []), ...comparisons.map((c) => c.verdict)];
  const priced = arms.filter((a) => a.meanCostUsd !== null && a.passRate !== null);
  if (priced.length > 1 && pareto.length > 0) {
    const onFront = pareto
      .map((name) => arms.find((a) => a.name === name))
      .filter((a): a is ArmSummary => a !== undefined)
      .map((a) =>
        a.simulated
          ? `${a.name} (simulated: ${pct(a.passRate)} at ${formatUsd(a.meanCostUsd)} a trial, simulated prices)`
          : `${a.name} (${pct(a.passRate)} at ${formatUsd(a.meanCostUsd)} a trial)`,
      );
    const dominated = priced.length - pareto.length;
    lines.push(
      `Cost and pass rate together: ${onFront.join(', ')} ${pareto.length === 1 ? 'is' : 'are'} on the Pareto frontier` +
        (dominated > 0
          ? `; the other ${dominated} arm${dominated === 1 ? ' is' : 's are'} dominated (another arm is at most as expensive and at least as good).`
          : '.'),
    );
  }
  return lines;
}

/** What an eval directory says beside the records: the matched budget and the tasks' tags. */
export interface EvalData {
  budget?: MatchedBudget | null;
  /** Task id → its tags (DIR/tasks.json). */
  tags?: Readonly<Record<string, readonly string[]>>;
}

/** Holm's adjustment across one family of comparisons, and each one's verdict. */
function adjusted(raw: readonly RawComparison[], o: EvalOptions, arms: readonly ArmSummary[]): Comparison[] {
  const pHolm = holmAdjust(raw.map((c) => c.p));
  return raw.map(({ pairs: _pairs, ...c }, i) => {
    const p = pHolm[i] ?? 1;
    const withHolm = { ...c, pHolm: p, significant: c.pairedTasks > 0 && p < o.alpha };
    const label = (name: string) => labelOf(arms, name);
    return { ...withHolm, verdict: verdictText(withHolm, o.confidence, o.alpha, label) };
  });
}

/** Per tag, each arm's pass rate and interval on the tasks carrying it (same method as the arm's). */
function byTag(
  grouped: ReadonlyMap<string, TrialRecord[]>,
  arms: readonly Arm[],
  tags: Readonly<Record<string, readonly string[]>>,
  o: EvalOptions,
): TagBreakdown[] {
  const tasksOf = new Map<string, Set<string>>();
  for (const [task, list] of Object.entries(tags))
    for (const tag of list) {
      const set = tasksOf.get(tag) ?? new Set<string>();
      set.add(task);
      tasksOf.set(tag, set);
    }
  const graded = new Set<string>();
  for (const list of grouped.values()) for (const r of list) graded.add(r.task);
  return [...tasksOf.keys()].sort().flatMap((tag, t) => {
    const tasks = tasksOf.get(tag) ?? new Set<string>();
    const count = [...tasks].filter((task) => graded.has(task)).length;
    if (count === 0) return [];
    const rows = arms.map((arm, i) => {
      const mine = (grouped.get(arm.name) ?? []).filter((r) => tasks.has(r.task));
      const a = summarizeArm(arm, mine, { ...o, ks: [] }, o.seed + 200_000 + 1000 * t + i);
      return { arm: arm.name, tasks: a.tasks, passRate: a.passRate, interval: a.interval };
    });
    return [{ tag, tasks: count, arms: rows }];
  });
}

export function summarizeEval(
  records: readonly TrialRecord[],
  arms: readonly Arm[],
  options: Partial<EvalOptions> = {},
  readWarnings: readonly string[] = [],
  data: EvalData = {},
): EvalSummary {
  const o: EvalOptions = { ...DEFAULT_EVAL_OPTIONS, ...options };
  const warnings = [...readWarnings, ...crossCheck(records, arms)];
  const known = new Set(arms.map((a) => a.name));
  const usable = oneRepoPerTask(records.filter((r) => known.has(r.arm)));
  const grouped = byArm(usable);
  // Each arm's resampling gets its own stream, derived from the one seed.
  const budget = data.budget ?? null;
  const armSummaries = arms.map((arm, i) =>
    summarizeArm(arm, grouped.get(arm.name) ?? [], o, o.seed + 1000 * i, effectiveBudget(arm, budget)),
  );
  if (budget) {
    const lowered = armSummaries.filter(
      (a) => a.budget.usd !== budget.usd || a.budget.tokens !== budget.tokens,
    );
    for (const a of lowered)
      warnings.push(
        `arm "${a.name}" ran under a lower budget than the matched one (${JSON.stringify(a.budget)} instead of ${JSON.stringify(budget)}): it is not compared at equal spend`,
      );
  }
  for (const a of armSummaries) {
    if (a.trials === 0) warnings.push(`arm "${a.name}" has no graded trial`);
    if (a.infraErrors > 0)
      warnings.push(
        `arm "${a.name}": ${a.infraErrors} infra error(s) left out of its rates (harness failures, not the team's)`,
      );
  }
  const baseline = findBaseline(arms, warnings);
  const soloSummary = armSummaries.find((a) => a.name === baseline?.name);
  const raw: RawComparison[] = [];
  if (baseline && soloSummary) {
    const soloTasks = tallyArm(grouped.get(baseline.name) ?? []).tasks;
    arms.forEach((arm, i) => {
      const summary = armSummaries[i];
      if (arm.name === baseline.name || !summary) return;
      const armTasks = tallyArm(grouped.get(arm.name) ?? []).tasks;
      raw.push(compareWithSolo(summary, armTasks, soloSummary, soloTasks, o, o.seed + 1000 * i + 500));
    });
  }
  const comparisons = adjusted(raw, o, armSummaries);
  const rawPairwise: RawComparison[] = [];
  o.compare.forEach(([a, b], j) => {
    const ia = arms.findIndex((x) => x.name === a);
    const ib = arms.findIndex((x) => x.name === b);
    const sa = armSummaries[ia];
    const sb = armSummaries[ib];
    if (!sa || !sb || a === b) {
      warnings.push(`--compare ${a},${b}: ${a === b ? 'an arm is not compared with itself' : 'no such arm'}`);
      return;
    }
    const ta = tallyArm(grouped.get(a) ?? []).tasks;
    const tb = tallyArm(grouped.get(b) ?? []).tasks;
    rawPairwise.push(compareWithSolo(sa, ta, sb, tb, o, o.seed + 100_000 + 1000 * j));
  });
  const pairwise = adjusted(rawPairwise, o, armSummaries);
  const pareto = paretoFrontier(
    armSummaries.flatMap((a) =>
      a.meanCostUsd !== null && a.passRate !== null
        ? [{ name: a.name, cost: a.meanCostUsd, value: a.passRate }]
        : [],
    ),
  ).map((p) => p.name);
  const repos = new Set(usable.map((r) => r.repo)).size;
  if (repos > 1 && repos < 5)
    warnings.push(
      `only ${repos} repositories: intervals clustered by repository rest on few clusters and generalise to other repositories only roughly`,
    );
  return {
    v: EVAL_SUMMARY_VERSION,
    confidence: o.confidence,
    alpha: o.alpha,
    power: o.power,
    seed: o.seed,
    resamples: o.resamples,
    smallN: o.smallN,
    baseline: baseline?.name ?? null,
    arms: armSummaries,
    comparisons,
    pairwise,
    budget,
    byTag: data.tags ? byTag(grouped, arms, data.tags, o) : [],
    pareto,
    matrix: matrix(raw, usable),
    headline: [...headline(armSummaries, comparisons, pareto), ...pairwise.map((c) => c.verdict)],
    warnings,
  };
}
