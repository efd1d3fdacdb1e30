/**
 * What a finished run has to publish, read from its event log: the result commit fetched into the
 * user's repository (`result.fetched`), each landed merge request in landing order, and the run's
 * summary (view/summary.ts, the one every view shows).
 */
import type { StoredEvent } from '../core/events.js';
import { err, ok, type Result } from '../lang/result.js';
import { type RunSummary, summarise } from '../view/summary.js';

export interface LandedMerge {
  mr: number;
  /** Who asked (null: outside any agent). */
  agent: string | null;
  /** The request's note (the agent's words). */
  note: string;
  /** The commit that landed on main: its parent is main before it. */
  commit: string;
  files: string[];
}

export interface RunResult {
  runId: string;
  /** The user's repository the result was fetched into. */
  repo: string;
  /** `colony/<run-id>` and the commit it was fetched at. */
  branch: string;
  commit: string;
  summary: RunSummary;
  /** In landing order (each one's commit sits on the one before). */
  landed: LandedMerge[];
}

export function runResultOf(runId: string, events: readonly StoredEvent[]): Result<RunResult> {
  const summary = summarise(runId, events);
  if (summary.status === 'running')
    return err(`run ${runId} has not finished: publish it once it has (colony show ${runId})`);
  let fetched: StoredEvent<'result.fetched'> | undefined;
  const notes = new Map<number, string>();
  const landed: LandedMerge[] = [];
  for (const event of events) {
    if (event.kind === 'result.fetched') fetched = event;
    else if (event.kind === 'merge.requested') notes.set(event.data.mr, event.data.note);
    else if (event.kind === 'merge.landed')
      landed.push({
        mr: event.data.mr,
        agent: event.agent,
        note: notes.get(event.data.mr) ?? '',
        commit: event.data.commit,
        files: event.data.files ?? [],
      });
  }
  if (!fetched)
    return err(
      `run ${runId} landed nothing: there is no result branch to publish (its summary says result branch: none)`,
    );
  return ok({
    runId,
    repo: fetched.data.repo,
    branch: fetched.data.branch,
    commit: fetched.data.commit,
    summary,
    landed,
  });
}

/** The branch a landed merge request is published on with --per-merge-request. */
export function mergeRequestBranch(result: Pick<RunResult, 'branch'>, mr: number): string {
  return `${result.branch}-mr-${mr}`;
}
