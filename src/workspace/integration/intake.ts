/**
 * Intake: requests into the queue and batches out of it. A request gets its MR id under the run's
 * 'ids' lock (max id in the log + 1, or the id of an unresolved request for the same branch tip after
 * a restart), its commit pinned as refs/colony/mr/<id> and one `merge.requested` event. A batch is the
 * queue's next requests, skipping those another queue of the run already resolved.
 */
import type { EventLog } from '../../store/types.js';
import { revParse, updateRefs } from './hub-git.js';
import { type MrLedger, resultFromLog } from './ledger.js';
import type { IntegrationLock } from './lock.js';
import type { EnqueueResult, MergeRequestInput, MergeRequestResult, Pending } from './types.js';

export interface IntakeContext {
  runId: string;
  hub: string;
  log: EventLog;
  lock: IntegrationLock;
  ledger: MrLedger;
}

/**
 * Gives the branch's current tip an MR id and hands it to `accept` (still under the id lock, so two
 * submissions of one tip in this process get one place in the queue). `known` finds a request for
 * that tip this queue already holds.
 */
export async function admit(
  ctx: IntakeContext,
  input: MergeRequestInput,
  known: (branch: string, commit: string) => Pending | undefined,
  accept: (request: Pending) => void,
): Promise<EnqueueResult> {
  const commit = await revParse(ctx.hub, `refs/heads/${input.branch}^{commit}`);
  if (commit === null) return { ok: false, error: `branch ${input.branch} does not exist in the hub` };
  try {
    return await ctx.lock.withLock(ctx.runId, 'ids', async () => {
      await ctx.ledger.refresh();
      const held = known(input.branch, commit);
      if (held) return { ok: true as const, mr: held.mr, commit };
      const previous = ctx.ledger.pendingFor(input.branch, commit);
      const mr = previous?.mr ?? ctx.ledger.maxId() + 1;
      if (!previous) {
        const pinned = await updateRefs(ctx.hub, [{ ref: `refs/colony/mr/${mr}`, to: commit }]);
        if (!pinned.ok) return { ok: false as const, error: `could not pin ${commit}: ${pinned.error}` };
        await ctx.log.append({
          runId: ctx.runId,
          agent: input.agent,
          kind: 'merge.requested',
          data: { mr, branch: input.branch, commit, note: input.note },
        });
        await ctx.ledger.refresh();
      }
      const { preApproved, ...request } = input;
      accept({
        mr,
        ...request,
        commit,
        approved: preApproved === true,
        landRetries: 0,
        ...(previous ? { resumed: true } : {}),
      });
      return { ok: true as const, mr, commit };
    });
  } catch (error) {
    return { ok: false, error: `could not queue the merge request: ${(error as Error).message}` };
  }
}

/**
 * Takes up to `size` requests off the front of `queue`. A request whose outcome is already in the log
 * leaves the queue with that outcome (`resolve`). A batch is all approved or all unapproved, so that
 * with manual approval its verdict means one thing.
 */
export function takeBatch(
  queue: Pending[],
  size: number,
  ledger: MrLedger,
  resolve: (mr: number, result: MergeRequestResult) => void,
): Pending[] {
  const batch: Pending[] = [];
  while (queue.length > 0 && batch.length < size) {
    const next = queue[0] as Pending;
    const outcome = ledger.outcomes.get(next.mr);
    if (outcome) {
      queue.shift();
      resolve(next.mr, resultFromLog(outcome, next.commit));
      continue;
    }
    if (batch.length > 0 && (batch[0] as Pending).approved !== next.approved) break;
    batch.push(next);
    queue.shift();
  }
  return batch;
}
