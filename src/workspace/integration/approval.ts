/**
 * Approval: with manual approval a verified request is parked (`merge.awaiting_approval`) until it is
 * approved, in this process with `queue.approve(mr)`, or from another one (`colony approve RUN MR`):
 * `approveFromOutside` records the approval as an event in the run's log, and a queue holding that
 * request reads it (polling the log every `approvalPollMs`, only while it has requests waiting).
 */
import type { EventLog } from '../../store/types.js';
import { approvalEvent, MrLedger } from './ledger.js';
import type { IntegrationQueueOptions, Pending } from './types.js';

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

type GateOptions = Pick<IntegrationQueueOptions, 'runId' | 'log' | 'approvalPollMs' | 'onAwaitingApproval'>;

/**
 * Parks verified requests in the queue's `awaiting` map and watches the log for approvals given
 * elsewhere; `approve` is the queue's (it moves the request back into the queue).
 */
export class ApprovalGate {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly options: GateOptions,
    private readonly ledger: MrLedger,
    private readonly awaiting: Map<number, Pending>,
    private readonly approve: (mr: number) => void,
  ) {}

  async park(request: Pending, commit: string): Promise<void> {
    this.awaiting.set(request.mr, request);
    await this.options.log.append({
      runId: this.options.runId,
      agent: request.agent,
      kind: 'merge.awaiting_approval',
      data: { mr: request.mr, commit },
    });
    this.update();
    this.options.onAwaitingApproval?.({
      mr: request.mr,
      agent: request.agent,
      branch: request.branch,
      commit: request.commit,
      note: request.note,
    });
    // An approval may already be in the log (given before verification finished).
    if (this.ledger.approvals.has(request.mr)) this.approve(request.mr);
  }

  /** Polls the log while something is parked, not otherwise; call when `awaiting` changed. */
  update(): void {
    if (this.awaiting.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else if (this.awaiting.size > 0 && !this.timer) {
      this.timer = setInterval(() => void this.poll(), this.options.approvalPollMs ?? 1000);
      this.timer.unref();
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Approvals recorded by other processes (`approveFromOutside`). */
  private async poll(): Promise<void> {
    await this.ledger.refresh().catch(() => {});
    for (const mr of [...this.awaiting.keys()]) if (this.ledger.approvals.has(mr)) this.approve(mr);
  }
}
