/**
 * Who may decide on a merge request (approve it, or turn it down), checked wherever a logged decision
 * is read (the ledger):
 *   - the user: the event is written outside any agent (`agent` null: `colony approve`/`reject`, the
 *     dashboard with the server token) and says `by: 'user'`; agents' tools never write `agent: null`;
 *   - an integrator of the run who is not the request's author: the event's `agent` is the one named
 *     in `by`, and that agent was started with the review tools (its `agent.started` lists
 *     `review_merge`, which only the topology gives it).
 * Any other decision (the author approving itself, a peer without the review tools, a name that is no
 * agent, an agent writing in the user's name) does not count; the queue logs it as
 * `merge.approval_ignored`.
 */
import { RESERVED_AGENT_NAMES, USER_SENDER } from '../../agent/direct-message.js';

/** The integrator's decision tool: an agent started with it is an integrator of the run. */
export const REVIEW_MERGE_TOOL = 'review_merge';

/** Who decides as the person running Colony. */
export const USER_DECIDER = USER_SENDER;

export interface LoggedDecision {
  /** The event's `agent` field (null: written outside any agent). */
  agent: string | null;
  by: string;
}

/** Why a decision does not count, or null when it does. `author` is the request's agent (undefined: no such request). */
export function whyDecisionIgnored(
  decision: LoggedDecision,
  author: string | undefined,
  integrators: ReadonlySet<string>,
): string | null {
  const { agent, by } = decision;
  if (author === undefined) return 'no such merge request';
  if (by === USER_DECIDER)
    return agent === null ? null : `agent ${agent} cannot decide in the name of the user`;
  if (agent === null) return `"${by}" is not the user, and no agent of the run recorded it`;
  if (agent !== by) return `recorded by ${agent} in the name of ${by}`;
  if (RESERVED_AGENT_NAMES.has(by)) return `"${by}" is a reserved name, not an integrator`;
  if (by === author) return `${by} is the author: nobody decides on their own merge request`;
  if (!integrators.has(by)) return `${by} is not an integrator of this run`;
  return null;
}
