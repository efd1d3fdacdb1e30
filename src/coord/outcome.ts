/**
 * The rule for "done" on the task board: a release whose outcome starts with the word `done` or
 * `landed` (any case, leading spaces ignored) marks the board task on that scope done. Any other
 * outcome, releaseAll's "peer finished", or a lapsed lease leaves the task open for others.
 * Mirrors colony.coord_outcome_done (migration 005), which is what decides.
 */
const DONE_OUTCOME = /^\s*(done|landed)\b/i;

export function isDoneOutcome(outcome: string | null | undefined): boolean {
  return outcome != null && DONE_OUTCOME.test(outcome);
}
