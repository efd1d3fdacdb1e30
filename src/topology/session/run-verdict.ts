/**
 * The one status decision of a run, for every topology: a run succeeds only when the agents its goal
 * rests on (solo's agent, the lead, the peers, the workflow program) finished, their work landed and
 * the verify command (if any) passed on main; otherwise it fails, stops or runs out of budget, with
 * the reason. The topologies only say what happened; the order of precedence lives here.
 */
import type { AgentOutcome } from '../../agent/loop.js';
import type { AgentEnd } from '../../run/agent-end.js';
import type { EndCause } from '../../run/run-control.js';
import type { RunOutcome } from '../context.js';

/** How one of the run's deciding parts ended. */
export interface DecidingEnd {
  /** Who, as the reason names it: "the agent", "the lead", "peer-2", "the workflow". */
  who: string;
  end: 'done' | 'failed' | 'budget' | 'aborted' | 'missing';
  reason: string;
}

export interface VerdictFacts {
  /** The parts the run's goal rests on: one (solo, orchestrated, workflow) or every peer. */
  ends: DecidingEnd[];
  /** Why the run ended early, if it did (a succeeded cause: the peers' goal was met). */
  endCause: EndCause | null;
  /** The verify command's result on main (null: none given). */
  verify: { command: string; passed: boolean } | null;
  /** Whether the work reached main, where the topology lands it at the end (solo). */
  landing?: { landed: true } | { landed: false; reason: string };
  /** The acceptance check's last round (orchestrated `--accept`; null: it did not run). */
  acceptance?: { command: string; result: { round: number; passed: boolean } | null };
}

export function decideRunStatus(facts: VerdictFacts): RunOutcome {
  const decided = decideWithoutAcceptance(facts);
  return facts.acceptance ? withAcceptance(decided, facts.acceptance) : decided;
}

function decideWithoutAcceptance(facts: VerdictFacts): RunOutcome {
  const { ends, endCause, verify } = facts;
  const verifyFailed = verify !== null && !verify.passed;
  if (endCause?.status === 'succeeded' && !verifyFailed) return endCause;
  const budget = ends.find((e) => e.end === 'budget');
  if (budget) return { status: 'budget_exhausted', reason: budget.reason };
  if (endCause && endCause.status !== 'succeeded') return endCause;
  const aborted = ends.find((e) => e.end === 'aborted');
  if (aborted) return { status: 'stopped', reason: aborted.reason };
  const done = ends.filter((e) => e.end === 'done');
  const first = ends.find((e) => e.end !== 'done');
  if (done.length === 0) return { status: 'failed', reason: nothingFinished(ends) };
  if (facts.landing && !facts.landing.landed)
    return { status: 'failed', reason: `the agent's work did not land: ${facts.landing.reason}` };
  if (verify && verifyFailed)
    return { status: 'failed', reason: `verify command failed on main: ${verify.command}` };
  if (first && !verify?.passed)
    return {
      status: 'failed',
      reason: `${ends.length - done.length} of ${ends.length} did not finish (${first.who}: ${first.reason})`,
    };
  const finished =
    ends.length === 1
      ? `${done[0]?.who} finished`
      : done.length === ends.length
        ? `all ${ends.length} finished`
        : `${done.length} of ${ends.length} finished`;
  return { status: 'succeeded', reason: verify?.passed ? `${finished} and verify passed on main` : finished };
}

function nothingFinished(ends: DecidingEnd[]): string {
  const [only] = ends;
  if (!only) return 'no agent ran';
  if (ends.length === 1)
    return only.end !== 'missing'
      ? `${only.who} failed: ${only.reason}`
      : only.reason === 'did not finish'
        ? `${only.who} did not finish`
        : // Why it never started (a worker's refusal, a workspace error): the user's next step.
          `${only.who} did not finish: ${only.reason}`;
  const missing = ends.every((e) => e.end === 'missing');
  const first = ends.find((e) => e.end === 'failed') ?? only;
  return missing
    ? `none of the ${ends.length} could start: ${first.reason}`
    : `every one of the ${ends.length} failed, no work landed (${first.who}: ${first.reason})`;
}

function withAcceptance(
  decided: RunOutcome,
  acceptance: NonNullable<VerdictFacts['acceptance']>,
): RunOutcome {
  if (decided.status !== 'succeeded') return decided;
  const { result, command } = acceptance;
  if (!result) return { status: 'failed', reason: 'the acceptance check did not run' };
  if (!result.passed)
    return {
      status: 'failed',
      reason: `acceptance check failed on main after ${result.round} fix round(s): ${command}`,
    };
  return {
    status: 'succeeded',
    reason: `${decided.reason}; acceptance passed after ${result.round} fix round(s)`,
  };
}

/** An agent's outcome as a deciding end (null: it never finished). */
export function decidingOutcome(
  who: string,
  outcome: Pick<AgentOutcome, 'status' | 'stopReason' | 'reason'> | null,
): DecidingEnd {
  if (!outcome) return { who, end: 'missing', reason: 'did not finish' };
  const { stopReason, reason } = outcome;
  if (stopReason === 'budget_usd' || stopReason === 'budget_tokens') return { who, end: 'budget', reason };
  if (stopReason === 'aborted') return { who, end: 'aborted', reason };
  return { who, end: outcome.status === 'done' ? 'done' : 'failed', reason };
}

/** A session's end as a deciding end (a session that never started carries its error). */
export function decidingEnd(end: AgentEnd): DecidingEnd {
  return end.started
    ? decidingOutcome(end.agent, end.outcome)
    : { who: end.agent, end: 'missing', reason: end.error };
}
