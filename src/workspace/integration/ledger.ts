/**
 * What the event log says about a run's merge requests, read incrementally (only events after the
 * last one seen): the ids used so far, each request, its outcome, which requests were parked for
 * approval, and the decisions (approve, decline) given in other processes; the first decision counts.
 * The log is the source of truth, so ids are never reused after a restart and an outcome logged by
 * another process is honoured here.
 */
import type { EventInput, EventKind, EventPayloads, StoredEvent } from '../../core/events.js';
import type { EventLog } from '../../store/types.js';
import type { MergeRequestResult } from './types.js';

/** Appended by `approveFromOutside`; a queue waiting for approval reads it from the log. */
export const MERGE_APPROVED = 'merge.approved' satisfies EventKind;

export interface RequestRecord {
  mr: number;
  agent: string;
  branch: string;
  commit: string;
  note: string;
  seq: number;
}

export type OutcomeRecord =
  | { kind: 'merge.landed'; agent: string | null; data: EventPayloads['merge.landed'] }
  | { kind: 'merge.rejected'; agent: string | null; data: EventPayloads['merge.rejected'] };

/** Appended by `rejectFromOutside`; a queue holding the parked request rejects it. */
export const MERGE_DECLINED = 'merge.declined' satisfies EventKind;

const KINDS: EventKind[] = [
  'merge.requested',
  'merge.landed',
  'merge.rejected',
  'merge.awaiting_approval',
  MERGE_APPROVED,
  MERGE_DECLINED,
];

export class MrLedger {
  private cursor = 0;
  readonly requests = new Map<number, RequestRecord>();
  readonly outcomes = new Map<number, OutcomeRecord>();
  readonly approvals = new Set<number>();
  /** Requests turned down from outside, with who and why. */
  readonly declines = new Map<number, { by: string; reason: string }>();
  /** Requests that were parked for approval at some point. */
  readonly parked = new Set<number>();
  /** Landed events in log order, for `sync`'s "landed since" list. */
  readonly landed: { seq: number; mr: number; commit: string }[] = [];

  constructor(
    private readonly log: EventLog,
    private readonly runId: string,
  ) {}

  async refresh(): Promise<void> {
    const events = await this.log.read(this.runId, { afterSeq: this.cursor, kinds: KINDS });
    for (const event of events) this.apply(event);
  }

  maxId(): number {
    let max = 0;
    for (const mr of this.requests.keys()) max = Math.max(max, mr);
    return max;
  }

  /** An unresolved request for exactly this branch tip (a resubmission after a crash reuses its id). */
  pendingFor(branch: string, commit: string): RequestRecord | null {
    for (const record of this.requests.values()) {
      if (record.branch === branch && record.commit === commit && !this.outcomes.has(record.mr))
        return record;
    }
    return null;
  }

  private apply(event: StoredEvent): void {
    this.cursor = Math.max(this.cursor, event.seq);
    if (event.kind === 'merge.requested') {
      const data = event.data;
      this.requests.set(data.mr, { ...data, agent: event.agent ?? '', seq: event.seq });
    } else if (event.kind === 'merge.landed') {
      const data = event.data;
      this.outcomes.set(data.mr, { kind: 'merge.landed', agent: event.agent, data });
      this.landed.push({ seq: event.seq, mr: data.mr, commit: data.commit });
    } else if (event.kind === 'merge.rejected') {
      const data = event.data;
      this.outcomes.set(data.mr, { kind: 'merge.rejected', agent: event.agent, data });
    } else if (event.kind === 'merge.awaiting_approval') {
      this.parked.add(event.data.mr);
    } else if (event.kind === MERGE_APPROVED) {
      const mr = Number((event.data as { mr?: unknown }).mr);
      if (Number.isInteger(mr) && !this.declines.has(mr)) this.approvals.add(mr);
    } else if (event.kind === MERGE_DECLINED) {
      const { mr, by, reason } = event.data;
      if (!this.approvals.has(mr)) this.declines.set(mr, { by, reason });
    }
  }
}

/** The approval event for another process's queue (see MERGE_APPROVED). */
export function approvalEvent(runId: string, mr: number, by: string): EventInput {
  return { runId, agent: null, kind: MERGE_APPROVED, data: { mr, by } };
}

/** The decline event for another process's queue (see MERGE_DECLINED). */
export function declineEvent(runId: string, mr: number, by: string, reason: string): EventInput {
  return { runId, agent: null, kind: MERGE_DECLINED, data: { mr, by, reason } };
}

/** A logged outcome as the answer to whoever waits for the request. */
export function resultFromLog(outcome: OutcomeRecord, agentCommit: string): MergeRequestResult {
  if (outcome.kind === 'merge.landed') {
    const { mr, commit, mainBefore, batch } = outcome.data;
    return {
      status: 'landed',
      mr,
      commit,
      agentCommit,
      mainBefore,
      batch,
      files: [],
      verify: '(landed elsewhere)',
    };
  }
  const { mr, reason, files, output } = outcome.data;
  return { status: 'rejected', mr, agentCommit, reason, files, output };
}
