/**
 * The trial record of `colony eval`: one JSON line per trial in `DIR/trials.jsonl`, and the arms
 * (team configurations) in `DIR/arms.json`. Versioned zod schemas, so a file written by another
 * version of Colony (or by hand) is refused line by line with a clear message instead of being trusted.
 * Reading never loses data: valid lines are kept, every bad line is reported with its number and field.
 */
import { z } from 'zod';

/** Raise when a record's meaning changes; readers refuse versions they do not know. */
export const TRIAL_RECORD_VERSION = 1;
export const ARMS_FILE_VERSION = 1;

export const OUTCOMES = ['pass', 'fail', 'timeout', 'infra_error'] as const;
export type Outcome = (typeof OUTCOMES)[number];

const count = z.number().int().nonnegative();
const nonNegative = z.number().nonnegative();

export const trialRecordSchema = z.strictObject({
  v: z.literal(TRIAL_RECORD_VERSION),
  arm: z.string().min(1),
  task: z.string().min(1),
  /** The task's repository: the cluster of the clustered statistics (tasks of one repo are correlated). */
  repo: z.string().min(1),
  trial: count,
  outcome: z.enum(OUTCOMES),
  /** Share of the graded tests passing, 0..1. */
  score: z.number().min(0).max(1),
  wallMs: nonNegative,
  /** Time from the start to the first green verify; null when it never went green. */
  firstGreenMs: nonNegative.nullable(),
  tokens: z.strictObject({ input: count, cachedInput: count, output: count }),
  costUsd: nonNegative,
  criticalSteps: count,
  parallelism: nonNegative,
  merges: count,
  conflicts: count,
  runId: z.string().min(1).nullable(),
});

export type TrialRecord = z.infer<typeof trialRecordSchema>;

export const armSchema = z.looseObject({
  name: z.string().min(1),
  topology: z.string().min(1),
  size: z.number().int().positive(),
  /** The baseline every other arm is compared with (at most one arm). */
  solo: z.boolean().optional(),
});

export type Arm = z.infer<typeof armSchema>;

/**
 * The matched budget: every arm runs under the same money and token limits, so arms are compared at
 * equal spend. An arm's own `budgetUsd`/`budgetTokens` may only lower it (effectiveBudget).
 */
export const matchedBudgetSchema = z
  .strictObject({ usd: z.number().positive().optional(), tokens: z.number().int().positive().optional() })
  .refine((b) => b.usd !== undefined || b.tokens !== undefined, { message: 'give usd, tokens or both' });

export type MatchedBudget = z.infer<typeof matchedBudgetSchema>;

export const armsFileSchema = z
  .strictObject({
    v: z.literal(ARMS_FILE_VERSION),
    /** Optional (added without a version change: files without it read as before). */
    budget: matchedBudgetSchema.optional(),
    arms: z.array(armSchema).min(1),
  })
  .refine((f) => new Set(f.arms.map((a) => a.name)).size === f.arms.length, {
    message: 'arm names must be unique',
    path: ['arms'],
  })
  .refine((f) => f.arms.filter((a) => a.solo).length <= 1, {
    message: 'at most one arm can be the solo baseline',
    path: ['arms'],
  });

export type ArmsFile = z.infer<typeof armsFileSchema>;

/** A line that was not kept, with its 1-based line number and what is wrong. */
export interface LineIssue {
  line: number;
  message: string;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || 'record'}: ${i.message}`)
    .join('; ');
}

/**
 * Parses trials.jsonl text. Blank lines are skipped; a line that is not JSON, not a v1 record, or
 * repeats an (arm, task, trial) already seen is reported (the first occurrence is kept).
 */
export function parseTrialLines(text: string): { records: TrialRecord[]; issues: LineIssue[] } {
  const records: TrialRecord[] = [];
  const issues: LineIssue[] = [];
  const seen = new Map<string, number>();
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      issues.push({ line, message: `not JSON: ${(err as Error).message}` });
      return;
    }
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
      const version = (json as { v?: unknown }).v;
      if (version !== TRIAL_RECORD_VERSION) {
        const found = version === undefined ? 'missing;' : `record version ${JSON.stringify(version)};`;
        issues.push({ line, message: `v: ${found} this Colony reads version ${TRIAL_RECORD_VERSION}` });
        return;
      }
    }
    const parsed = trialRecordSchema.safeParse(json);
    if (!parsed.success) {
      issues.push({ line, message: describeIssues(parsed.error) });
      return;
    }
    const r = parsed.data;
    const key = JSON.stringify([r.arm, r.task, r.trial]);
    const first = seen.get(key);
    if (first !== undefined) {
      issues.push({
        line,
        message: `duplicate of line ${first} (arm ${r.arm}, task ${r.task}, trial ${r.trial})`,
      });
      return;
    }
    seen.set(key, line);
    records.push(r);
  });
  return { records, issues };
}

/** Parses arms.json text: the arms (and the matched budget), or one error naming the field. */
export function parseArmsFile(
  text: string,
): { ok: true; arms: Arm[]; budget: MatchedBudget | null } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `arms file is not JSON: ${(err as Error).message}` };
  }
  const parsed = armsFileSchema.safeParse(json);
  if (!parsed.success) return { ok: false, error: `arms file is invalid at ${describeIssues(parsed.error)}` };
  return { ok: true, arms: parsed.data.arms, budget: parsed.data.budget ?? null };
}

/** A budget an arm runs under: `usd` and `tokens`, each undefined when unlimited. */
export interface EffectiveBudget {
  usd?: number;
  tokens?: number;
}

function lower(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/**
 * The limits one arm runs under: the matched budget, lowered by the arm's own `budgetUsd` /
 * `budgetTokens` when those are lower (a higher one is refused by eval run before anything runs).
 */
export function effectiveBudget(arm: Arm, matched: MatchedBudget | null): EffectiveBudget {
  const own = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const usd = lower(matched?.usd, own(arm.budgetUsd));
  const tokens = lower(matched?.tokens, own(arm.budgetTokens));
  return { ...(usd !== undefined ? { usd } : {}), ...(tokens !== undefined ? { tokens } : {}) };
}

/** Records whose arm is not in the arms file, or whose task is filed under two repositories. */
export function crossCheck(records: readonly TrialRecord[], arms: readonly Arm[]): string[] {
  const names = new Set(arms.map((a) => a.name));
  const problems: string[] = [];
  const unknown = new Map<string, number>();
  for (const r of records) if (!names.has(r.arm)) unknown.set(r.arm, (unknown.get(r.arm) ?? 0) + 1);
  for (const [arm, n] of unknown)
    problems.push(`${n} trial(s) of arm "${arm}", which arms.json does not describe (left out)`);
  const repoOf = new Map<string, string>();
  for (const r of records) {
    const known = repoOf.get(r.task);
    if (known === undefined) repoOf.set(r.task, r.repo);
    else if (known !== r.repo)
      problems.push(`task "${r.task}" is filed under repos "${known}" and "${r.repo}" (the first is used)`);
  }
  return [...new Set(problems)];
}
