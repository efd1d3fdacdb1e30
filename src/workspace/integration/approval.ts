/**
 * Approval: with manual (or human) approval a verified request is parked (`merge.awaiting_approval`)
 * until it is decided: in this process with `queue.approve(mr)` / `queue.rejectAwaiting(mr, why)`, or
 * from another one (`colony approve RUN MR`, `colony reject RUN MR`, the dashboard):
 * `approveFromOutside` / `rejectFromOutside` record the decision as an event in the run's log, and a
 * queue holding that request reads it (polling the log every `approvalPollMs`, only while it has
 * requests waiting). The first decision logged for a request is the one that counts.
 *
 * Decisions from outside are the user's (`by: 'user'`, no agent); a queue counts only those and an
 * integrator's who is not the author (deciders.ts). Any other logged decision leaves the request
 * parked, and the queue records it once as `merge.approval_ignored {mr, by, agent, reason}`.
 */
import type { EventLog } from '../../store/types.js';
import { approvalEvent, declineEvent, type IgnoredDecision, ignoredEvent, MrLedger } from './ledger.js';
import type { IntegrationQueueOptions, Pending } from './types.js';

export type ApproveResult = { ok: true } | { ok: false; error: string };

/** The user approves a request (`colony approve`, the dashboard): recorded as by 'user', no agent. */
export async function approveFromOutside(log: EventLog, runId: string, mr: number): Promise<ApproveResult> {
  return decideFromOutside(log, runId, mr, 'approve', async (ledger) => {
    const declined = ledger.declines.get(mr);
    if (declined) return { ok: false, error: `merge request ${mr} was already rejected by ${declined.by}` };
    await log.append(approvalEvent(runId, mr));
    return { ok: true };
  });
}

/**
 * The user turns a request down (`colony reject`, the dashboard); its author gets `reason` (in
 * `merge.rejected`'s output and a direct message).
 */
export async function rejectFromOutside(
  log: EventLog,
  runId: string,
  mr: number,
  reason: string,
): Promise<ApproveResult> {
  const why = reason.trim();
  if (why === '') return { ok: false, error: 'a rejection needs a reason (the agent reads it)' };
  return decideFromOutside(log, runId, mr, 'reject', async (ledger) => {
    if (ledger.approvals.has(mr)) return { ok: false, error: `merge request ${mr} was already approved` };
    if (!ledger.declines.has(mr)) await log.append(declineEvent(runId, mr, why));
    return { ok: true };
  });
}

async function decideFromOutside(
  log: EventLog,
  runId: string,
  mr: number,
  verb: 'approve' | 'reject',
  decide: (ledger: MrLedger) => Promise<ApproveResult>,
): Promise<ApproveResult> {
  const ledger = new MrLedger(log, runId);
  try {
    await ledger.refresh();
    if (!ledger.requests.has(mr)) return { ok: false, error: `run ${runId} has no merge request ${mr}` };
    const outcome = ledger.outcomes.get(mr);
    if (outcome)
      return { ok: false, error: `merge request ${mr} is already ${outcome.kind.slice('merge.'.length)}` };
    return await decide(ledger);
  } catch (error) {
    return { ok: false, error: `could not ${verb}: ${(error as Error).message}` };
  }
}

/** What the output of a request rejected from outside says (the author reads it). */
export function declinedOutput(by: string, reason: string): string {
  return `rejected by ${by}: ${reason}`;
}

type GateOptions = Pick<IntegrationQueueOptions, 'runId' | 'log' | 'approvalPollMs' | 'onAwaitingApproval'>;

/** What the gate asks of the queue: a decided request leaves `awaiting` through these. */
export interface GateDecisions {
  approve(mr: number): void;
  reject(mr: number, output: string): Promise<unknown>;
  /** The request was parked (merge_request may answer now). */
  parked(request: Pending): void;
}

/**
 * Parks verified requests in the queue's `awaiting` map and watches the log for decisions given
 * elsewhere.
 */
export class ApprovalGate {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly options: GateOptions,
    private readonly ledger: MrLedger,
    private readonly awaiting: Map<number, Pending>,
    private readonly decisions: GateDecisions,
  ) {
    ledger.onIgnored((decision) => void this.recordIgnored(decision));
  }

  async park(request: Pending, commit: string, verify: string): Promise<void> {
    request.parked = { verify };
    this.awaiting.set(request.mr, request);
    await this.options.log.append({
      runId: this.options.runId,
      agent: request.agent,
      kind: 'merge.awaiting_approval',
      data: { mr: request.mr, commit, verify },
    });
    this.update();
    this.options.onAwaitingApproval?.({
      mr: request.mr,
      agent: request.agent,
      branch: request.branch,
      commit: request.commit,
      note: request.note,
    });
    this.decisions.parked(request);
    // A decision may already be in the log (given before verification finished).
    await this.apply(request.mr);
  }

  /** Polls the log while something is parked, not otherwise; call when `awaiting` changed. */
  update(): void {
    if (this.awaiting.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else if (this.awaiting.size > 0 && !this.timer) {
      this.timer = setInterval(() => void this.poll().catch(() => {}), this.options.approvalPollMs ?? 1000);
      this.timer.unref();
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Decisions recorded in the log (`approveFromOutside`, `rejectFromOutside`, an integrator's
   * review_merge); only those that count (deciders.ts) decide a parked request.
   */
  async poll(): Promise<void> {
    await this.ledger.refresh().catch(() => {});
    for (const mr of [...this.awaiting.keys()]) await this.apply(mr);
  }

  /** A logged decision that does not count: the request stays as it is, the log says why. */
  private async recordIgnored(decision: IgnoredDecision): Promise<void> {
    await this.options.log.append(ignoredEvent(this.options.runId, decision)).catch(() => {});
  }

  private async apply(mr: number): Promise<void> {
    if (!this.awaiting.has(mr)) return;
    if (this.ledger.approvals.has(mr)) {
      this.decisions.approve(mr);
      return;
    }
    const declined = this.ledger.declines.get(mr);
    if (declined) await this.decisions.reject(mr, declinedOutput(declined.by, declined.reason));
  }
}
