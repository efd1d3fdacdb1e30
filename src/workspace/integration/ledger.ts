/**
 * What the event log says about a run's merge requests, read incrementally (only events after the
 * last one seen): the ids used so far, each request, its outcome, which requests were parked for
 * approval, and the decisions (approve, decline) given in other processes; the first decision counts.
 * Only decisions of the user or of an integrator who is not the author count (deciders.ts); the others
 * are kept in `ignored` and handed to `onIgnored` listeners (the queue logs them). The log is the
 * source of truth, so ids are never reused after a restart and an outcome logged by another process is
 * honoured here.
 */
import type { EventInput, EventKind, EventPayloads, StoredEvent } from '../../core/events.js';
import type { EventLog } from '../../store/types.js';
import { REVIEW_MERGE_TOOL, USER_DECIDER, whyDecisionIgnored } from './deciders.js';
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

/** A decision that did not count (see deciders.ts), as `merge.approval_ignored` records it. */
export type IgnoredDecision = EventPayloads['merge.approval_ignored'];

const KINDS: EventKind[] = [
  'agent.started',
  'merge.requested',
  'merge.landed',
  'merge.rejected',
  'merge.awaiting_approval',
  MERGE_APPROVED,
  MERGE_DECLINED,
  'merge.approval_ignored',
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
  /** Agents started with the review tools: they may decide on others' requests. */
  readonly integrators = new Set<string>();
  /** Decisions that did not count, by the seq of their event. */
  readonly ignored = new Map<number, IgnoredDecision>();
  /** Seqs of ignored decisions already recorded as `merge.approval_ignored`. */
  private readonly reported = new Set<number>();
  private readonly ignoredListeners: ((decision: IgnoredDecision) => void)[] = [];

  constructor(
    private readonly log: EventLog,
    private readonly runId: string,
  ) {}

  async refresh(): Promise<void> {
    const events = await this.log.read(this.runId, { afterSeq: this.cursor, kinds: KINDS });
    const fresh: IgnoredDecision[] = [];
    for (const event of events) {
      const ignored = this.apply(event);
      if (ignored) fresh.push(ignored);
    }
    // After the whole page: a decision already recorded as ignored (later in the log) is not told again.
    for (const decision of fresh) {
      if (this.reported.has(decision.seq)) continue;
      this.reported.add(decision.seq);
      for (const listener of this.ignoredListeners) listener(decision);
    }
  }

  /** Calls `listener` once for each decision that does not count and is not yet recorded as such. */
  onIgnored(listener: (decision: IgnoredDecision) => void): void {
    this.ignoredListeners.push(listener);
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

  /** Folds one event in; returns the decision it holds when that decision does not count. */
  private apply(event: StoredEvent): IgnoredDecision | null {
    this.cursor = Math.max(this.cursor, event.seq);
    if (event.kind === 'agent.started') {
      if (event.agent && event.data.tools.includes(REVIEW_MERGE_TOOL)) this.integrators.add(event.agent);
    } else if (event.kind === 'merge.approval_ignored') {
      this.reported.add(event.data.seq);
    } else if (event.kind === 'merge.requested') {
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
    } else if (event.kind === MERGE_APPROVED || event.kind === MERGE_DECLINED) {
      const decision = event.kind === MERGE_APPROVED ? 'approve' : 'decline';
      const mr = Number(event.data.mr);
      const by = String(event.data.by);
      if (!Number.isInteger(mr)) return null;
      const why = whyDecisionIgnored(
        { agent: event.agent, by },
        this.requests.get(mr)?.agent,
        this.integrators,
      );
      if (why !== null) {
        const ignored: IgnoredDecision = {
          mr,
          by,
          agent: event.agent,
          decision,
          reason: why,
          seq: event.seq,
        };
        this.ignored.set(event.seq, ignored);
        return ignored;
      }
      if (event.kind === MERGE_APPROVED && !this.declines.has(mr)) this.approvals.add(mr);
      if (event.kind === MERGE_DECLINED && !this.approvals.has(mr))
        this.declines.set(mr, { by, reason: event.data.reason });
    }
    return null;
  }
}

/** The user's approval, for the run's queue (see MERGE_APPROVED): written outside any agent. */
export function approvalEvent(runId: string, mr: number): EventInput {
  return { runId, agent: null, kind: MERGE_APPROVED, data: { mr, by: USER_DECIDER } };
}

/** The user's decline, for the run's queue (see MERGE_DECLINED): written outside any agent. */
export function declineEvent(runId: string, mr: number, reason: string): EventInput {
  return { runId, agent: null, kind: MERGE_DECLINED, data: { mr, by: USER_DECIDER, reason } };
}

/** The record of a decision that did not count (the queue's fact, not an agent's). */
export function ignoredEvent(runId: string, decision: IgnoredDecision): EventInput {
  return { runId, agent: null, kind: 'merge.approval_ignored', data: decision };
}

/** A logged outcome as the answer to whoever waits for the request. */
export function resultFromLog(outcome: OutcomeRecord, agentCommit: string): MergeRequestResult {
  if (outcome.kind === 'merge.landed') {
    const { mr, commit, mainBefore, batch, files } = outcome.data;
    return {
      status: 'landed',
      mr,
      commit,
      agentCommit,
      mainBefore,
      batch,
      files: files ?? [],
      verify: '(landed elsewhere)',
    };
  }
  const { mr, reason, files, output } = outcome.data;
  return { status: 'rejected', mr, agentCommit, reason, files, output };
}
