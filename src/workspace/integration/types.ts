/** Plain data of the integration queue: requests, outcomes, options and the hooks it calls. */
import type { Sandbox } from '../../sandbox/index.js';
import type { EventLog } from '../../store/types.js';
import type { IntegrationLock } from './lock.js';

export type RejectReason = 'conflict' | 'verify_failed' | 'nothing_to_merge' | 'error' | 'review_rejected';

export interface MergeRequestInput {
  /** The requesting agent (author of the PATCH/FAIL entry, receiver of the rejection message). */
  agent: string;
  /** The agent's branch in the hub (e.g. `agent/bob`); its work must already be committed. */
  branch: string;
  /** One line saying what the change does: the landed commit's message and the PATCH entry's idea. */
  note: string;
  /** With manual approval: land without waiting for approve() (e.g. a sole integrator's own change). */
  preApproved?: boolean;
  /** The branch tip to submit, when the caller knows it (it just published it); default: read from the hub. */
  commit?: string;
  /**
   * The requester does not wait for the outcome (peers' merge_request): it hears it by direct message —
   * landed, or nothing to merge (a rejection is always sent).
   */
  notify?: boolean;
}

/** A verified request waiting for approval (what a reviewer sees). */
export interface AwaitingRequest {
  mr: number;
  agent: string;
  branch: string;
  commit: string;
  note: string;
}

export type MergeRequestResult =
  | {
      status: 'landed';
      mr: number;
      /** The commit on hub main that holds this request's change. */
      commit: string;
      /** The agent's submitted commit (kept reachable as refs/colony/mr/<mr>). */
      agentCommit: string;
      mainBefore: string;
      /** MR ids landed together with this one (including it). */
      batch: number[];
      files: string[];
      verify: string;
    }
  | {
      status: 'rejected';
      mr: number;
      agentCommit: string;
      reason: RejectReason;
      files: string[];
      /** Tail of the failing output (verify output, conflict list or error). */
      output: string;
    }
  /** The request could not even be queued (unknown branch, store failure): no MR id was used. */
  | { status: 'error'; mr: null; error: string };

export interface ContextEntryInput {
  author: string;
  kind: 'PATCH' | 'FAIL';
  /** ≤ 200 characters. */
  summary: string;
  detail?: string;
  scope?: string[];
}

export interface IntegrationHooks {
  /** Posts an entry to the run's shared context. */
  postEntry(entry: ContextEntryInput): Promise<void>;
  /** Sends a direct message (`to` an agent, `from` a sender name). */
  sendDirect(to: string, from: string, text: string): Promise<void>;
}

export interface IntegrationQueueOptions {
  runId: string;
  hubPath: string;
  /** Folder under which the integration worktree lives (`<workRoot>/integration`). Share it across processes of a run. */
  workRoot: string;
  /** Shell command run in the integration worktree; absent = every candidate passes. */
  verify?: string;
  /**
   * Where hub main stood before the run's first landing. With it, each integration first checks
   * that nothing outside the queue moved main (main-guard.ts); without it, only after a landing.
   */
  baseCommit?: string;
  /** Shell command run once per queue instance in the integration worktree before the first verify. */
  setup?: string;
  log: EventLog;
  hooks: IntegrationHooks;
  /**
   * 'auto' (default): a verified request lands. 'manual': it waits for approve(mr) before it lands,
   * and its requester waits for the decision (a reviewer inside the run, e.g. peers' integrators).
   * 'human': it waits the same way for a person (`colony approve` / `colony reject`, the dashboard):
   * merge_request answers as soon as the request is parked, the decision reaches the requester as a
   * direct message, close() waits until every parked request is decided (or `signal` aborts), and a
   * new queue of the run takes over the requests a previous process had parked.
   */
  approval?: 'auto' | 'manual' | 'human';
  /** With approval 'human': the run is ending (stop, deadline); close() no longer waits for decisions. */
  signal?: AbortSignal;
  /** Requests tested as one candidate at first. Default 8; 1 disables batching. */
  batchSize?: number;
  /**
   * Largest batch the window may grow to (batch-window.ts: doubled after a green full batch, halved
   * after a red one). Default `batchSize` (a fixed size).
   */
  maxBatchSize?: number;
  /**
   * Verify runs again before a failing batch of several requests is bisected: a flaky check that
   * passes on the retry lands the batch (the summary says so). Default 1; 0: bisect at once.
   */
  flakeRetries?: number;
  /** Environment of setup and verify (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where setup (with network) and the merge check run; null or absent: uncontained. */
  sandbox?: Sandbox | null;
  verifyTimeoutMs?: number;
  /**
   * Serialises integration (and MR id allocation) across every queue of the run. Default: an
   * in-process lock, enough when one process integrates the run; pass `pgIntegrationLock(store.connection)`
   * when several processes do.
   */
  lock?: IntegrationLock;
  /** How often, while requests await approval, the log is read for approvals from other processes. */
  approvalPollMs?: number;
  /** Sender name of rejection messages. Default 'integration'. */
  sender?: string;
  /** Called when a verified request starts waiting for approval (e.g. to tell a reviewer). */
  onAwaitingApproval?: (request: AwaitingRequest) => void;
}

export interface IntegrationStats {
  /** Candidates built (batches and bisection halves). */
  candidates: number;
  verifyRuns: number;
  verifyMs: number;
  landed: number;
  rejected: number;
  /** Verify runs repeated on a failing batch before bisecting it. */
  flakeRetries: number;
  /** Requests built in the fast lane (fast-chain.ts) rather than by merge-tree. */
  fastLaned: number;
}

export type EnqueueResult = { ok: true; mr: number; commit: string } | { ok: false; error: string };

/** What merge_request answers: the outcome, or (approval 'human') that the request waits for a person. */
export type MergeRequestReply =
  | MergeRequestResult
  | { status: 'awaiting_approval'; mr: number; agentCommit: string; verify: string };

// ——— internal to the queue and its jobs (not exported from index.ts) ———

/** A request the queue holds: queued, in a candidate, or parked awaiting approval. */
export interface Pending {
  mr: number;
  agent: string;
  branch: string;
  commit: string;
  note: string;
  approved: boolean;
  landRetries: number;
  /** Parked for approval at least once; with approval 'human', the verify summary it passed with. */
  parked?: { verify: string };
  /** Its id came from the log (a process of the run died with it pending): it may have landed already. */
  resumed?: boolean;
  /** Tell the requester the outcome by direct message (MergeRequestInput.notify). */
  notify?: boolean;
}

/** A request applied to a candidate: its commit on top of `parent` in the candidate chain. */
export interface Applied {
  request: Pending;
  parent: string;
  commit: string;
}

/** Publishes a rejection (event, FAIL entry, message, the waiters' answer). */
export type Reject = (
  request: Pending,
  reason: RejectReason,
  files: string[],
  output: string,
) => Promise<void>;

/** What `merge_status` reports (IntegrationQueue.status). */
export type MergeStatus =
  | { status: 'queued'; mr: number; ahead: number }
  | { status: 'integrating' | 'awaiting_approval' | 'unknown'; mr: number }
  | { status: 'done'; mr: number; result: MergeRequestResult };
