/**
 * Approving a merge request from another process (`colony approve RUN MR`): the approval is an event
 * in the run's log; a queue holding that request in 'awaiting approval' reads it (polling the log
 * every `approvalPollMs` only while it has requests waiting) and lands the request.
 * In the same process, call `queue.approve(mr)` directly.
 */
import type { EventLog } from '../../store/types.js';
import { approvalEvent, MrLedger } from './ledger.js';

export type ApproveResult = { ok: true } | { ok: false; error: string };

export async function approveFromOutside(
  log: EventLog,
  runId: string,
  mr: number,
  by = 'user',
): Promise<ApproveResult> {
  const ledger = new MrLedger(log, runId);
  try {
    await ledger.refresh();
    if (!ledger.requests.has(mr)) return { ok: false, error: `run ${runId} has no merge request ${mr}` };
    const outcome = ledger.outcomes.get(mr);
    if (outcome)
      return { ok: false, error: `merge request ${mr} is already ${outcome.kind.slice('merge.'.length)}` };
    await log.append(approvalEvent(runId, mr, by));
    return { ok: true };
  } catch (error) {
    return { ok: false, error: `could not approve: ${(error as Error).message}` };
  }
}
