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

interface Waiting {
  input: MergeRequestInput;
  commit: string;
  resolve: (result: EnqueueResult) => void;
}

/**
 * Gives each submitted branch tip an MR id and hands it to `accept` (still under the id lock, so two
 * submissions of one tip get one place in the queue; `known` finds a request for that tip the queue
 * already holds). Submissions that arrive while ids are being given wait and are admitted together:
 * one ledger read, one ref transaction pinning every new commit, one group of `merge.requested`
 * events — a thousand peers submitting at once cost a few git processes, not a thousand.
 */
export class Intake {
  private waiting: Waiting[] = [];
  private draining: Promise<void> | null = null;

  constructor(
    private readonly ctx: IntakeContext,
    private readonly known: (branch: string, commit: string) => Pending | undefined,
    private readonly accept: (request: Pending) => void,
  ) {}

  async admit(input: MergeRequestInput): Promise<EnqueueResult> {
    const commit = input.commit ?? (await revParse(this.ctx.hub, `refs/heads/${input.branch}^{commit}`));
    if (commit === null) return { ok: false, error: `branch ${input.branch} does not exist in the hub` };
    return new Promise((resolve) => {
      this.waiting.push({ input, commit, resolve });
      this.kick();
    });
  }

  private kick(): void {
    if (this.draining !== null) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.waiting.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    const items = this.waiting.splice(0);
    const { ctx } = this;
    try {
      await ctx.lock.withLock(ctx.runId, 'ids', async () => {
        await ctx.ledger.refresh();
        let next = ctx.ledger.maxId() + 1;
        const fresh: { mr: number; item: Waiting }[] = [];
        const admitted: { item: Waiting; mr: number; resumed: boolean; held: boolean }[] = [];
        const inBatch = new Map<string, number>();
        for (const item of items) {
          const key = `${item.input.branch}\0${item.commit}`;
          const held = this.known(item.input.branch, item.commit) ?? null;
          const twin = inBatch.get(key);
          if (held || twin !== undefined) {
            admitted.push({ item, mr: held?.mr ?? (twin as number), resumed: false, held: true });
            continue;
          }
          const previous = ctx.ledger.pendingFor(item.input.branch, item.commit);
          const mr = previous?.mr ?? next++;
          inBatch.set(key, mr);
          if (!previous) fresh.push({ mr, item });
          admitted.push({ item, mr, resumed: previous !== null, held: false });
        }
        if (fresh.length > 0) {
          const pinned = await updateRefs(
            ctx.hub,
            fresh.map(({ mr, item }) => ({ ref: `refs/colony/mr/${mr}`, to: item.commit })),
          );
          if (!pinned.ok) {
            for (const { item } of admitted)
              item.resolve({ ok: false, error: `could not pin ${item.commit}: ${pinned.error}` });
            return;
          }
          await ctx.log.appendMany(
            fresh.map(({ mr, item }) => ({
              runId: ctx.runId,
              agent: item.input.agent,
              kind: 'merge.requested' as const,
              data: { mr, branch: item.input.branch, commit: item.commit, note: item.input.note },
            })),
          );
          await ctx.ledger.refresh();
        }
        for (const { item, mr, resumed, held } of admitted) {
          if (!held) {
            const { preApproved, commit: _tip, ...request } = item.input;
            this.accept({
              mr,
              ...request,
              commit: item.commit,
              approved: preApproved === true,
              landRetries: 0,
              ...(resumed ? { resumed: true } : {}),
            });
          }
          item.resolve({ ok: true, mr, commit: item.commit });
        }
      });
    } catch (error) {
      const message = `could not queue the merge request: ${(error as Error).message}`;
      for (const item of items) item.resolve({ ok: false, error: message });
    }
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
