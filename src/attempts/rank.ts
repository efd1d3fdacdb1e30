/**
 * Ranking the attempts of a group: an attempt with a result (a branch) before one without; then by
 * verify (passed, not run, failed); then a run that succeeded before one that did not (a limit hit,
 * stopped); then by the judge's score (higher first; a number before none);
 * then by cost (lower first; a known cost before an unknown one); then by attempt number.
 */

export interface JudgeScore {
  /** The number the judge printed; null when it failed or printed none (`reason` says which). */
  score: number | null;
  reason: string | null;
}

export interface AttemptOutcome {
  index: number;
  runId: string;
  /** The run's status from its log (`not started` when it never recorded its start). */
  status: string;
  /** Why the run ended as it did, or why it did not start. */
  reason: string | null;
  /** The run's verify result; null when it ran none. */
  verify: boolean | null;
  /** null without --judge, or for an attempt with no result to judge. */
  judge: JudgeScore | null;
  costUsd: number | null;
  tokens: number;
  criticalSteps: number;
  /** colony/<run-id> in the user's repository, or null when nothing landed. */
  branch: string | null;
  commit: string | null;
}

const verifyRank = (v: boolean | null): number => (v === true ? 0 : v === null ? 1 : 2);

/** Compares two attempts: negative when `a` is better. */
export function compareAttempts(a: AttemptOutcome, b: AttemptOutcome): number {
  const hasResult = Number(a.branch === null) - Number(b.branch === null);
  if (hasResult !== 0) return hasResult;
  const verify = verifyRank(a.verify) - verifyRank(b.verify);
  if (verify !== 0) return verify;
  const succeeded = Number(a.status !== 'succeeded') - Number(b.status !== 'succeeded');
  if (succeeded !== 0) return succeeded;
  const judged = lowerFirst(negated(a.judge?.score ?? null), negated(b.judge?.score ?? null));
  if (judged !== 0) return judged;
  const cost = lowerFirst(a.costUsd, b.costUsd);
  if (cost !== 0) return cost;
  return a.index - b.index;
}

/** The attempts best first, and the winner: the best one, when it has a result. */
export function rankAttempts(attempts: readonly AttemptOutcome[]): {
  ranked: AttemptOutcome[];
  winner: AttemptOutcome | null;
} {
  const ranked = [...attempts].sort(compareAttempts);
  const best = ranked[0];
  return { ranked, winner: best && best.branch !== null ? best : null };
}

function negated(value: number | null): number | null {
  return value === null ? null : -value;
}

/** Numbers ascending, null after every number. */
function lowerFirst(a: number | null, b: number | null): number {
  if (a === null || b === null) return Number(a === null) - Number(b === null);
  return a === b ? 0 : a < b ? -1 : 1;
}
