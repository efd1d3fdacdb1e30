/**
 * The serial integration queue of one run. Requests wait in memory (their ids and outcomes are in
 * the event log); one candidate at a time, across every queue of the run (see lock.ts), is built on
 * the latest hub main with `git merge-tree`, checked out in the one integration worktree, verified,
 * and landed by moving hub main in one guarded ref transaction. Several queued requests are tested
 * as one batch; a failing batch is split in halves until the bad requests are found.
 *
 * Nothing is deleted: an agent's submitted commit is pinned as refs/colony/mr/<id>, each landed
 * commit as refs/colony/landed/<id>, and agent branches are never moved.
 *
 * This class keeps the requests' state (queued, parked, waited for) and composes the jobs:
 * intake.ts (ids, batches), candidate.ts (build and verify, with the verdict cache), landing.ts
 * (land, reject) and approval.ts (parking and approvals from other processes).
 */
import path from 'node:path';
import { HUB_MAIN } from '../hub/hub.js';
import { MAIN_REF, readHubMain } from '../hub/main.js';
import { ApprovalGate } from './approval.js';
import { type BatchWindow, batchWindow } from './batch-window.js';
import { buildCandidate, CandidateVerifier, type FastLane } from './candidate.js';
import { changedFiles, changeSince } from './hub-git.js';
import { Intake, takeBatch } from './intake.js';
import { Landing } from './landing.js';
import { MrLedger, resultFromLog } from './ledger.js';
import { type IntegrationLock, localIntegrationLock } from './lock.js';
import { MainChain } from './main-chain.js';
import { guardMain, movedMainWarning } from './main-guard.js';
import { ObjectReader } from './object-reader.js';
import type {
  Applied,
  AwaitingRequest,
  EnqueueResult,
  IntegrationQueueOptions,
  IntegrationStats,
  MergeRequestInput,
  MergeRequestReply,
  MergeRequestResult,
  MergeStatus,
  Pending,
  RejectReason,
} from './types.js';

export type { EnqueueResult } from './types.js';

const MAX_LAND_RETRIES = 3;

export class IntegrationQueue {
  readonly stats: IntegrationStats = {
    candidates: 0,
    verifyRuns: 0,
    verifyMs: 0,
    landed: 0,
    rejected: 0,
    flakeRetries: 0,
    fastLaned: 0,
  };
  private readonly options: IntegrationQueueOptions;
  private readonly hub: string;
  private readonly lock: IntegrationLock;
  private readonly ownsLock: boolean;
  private readonly ledger: MrLedger;
  private readonly window: BatchWindow;
  private readonly queue: Pending[] = [];
  private readonly awaiting = new Map<number, Pending>();
  private readonly waiters = new Map<number, ((result: MergeRequestResult) => void)[]>();
  /** merge_request calls waiting for their request to be parked (approval 'human'). */
  private readonly parkWaiters = new Map<number, ((reply: MergeRequestReply) => void)[]>();
  /** close() waiting for parked requests to be decided (approval 'human'). */
  private settleWaiters: (() => void)[] = [];
  /** approval 'human': taking over the requests a previous process of the run had parked. */
  private readonly recovered: Promise<void>;
  /** MRs queued, in flight or parked in this instance and not yet resolved. */
  private readonly local = new Set<number>();
  private readonly verifier: CandidateVerifier;
  private readonly landing: Landing;
  private readonly gate: ApprovalGate;
  private readonly intake: Intake;
  private readonly lane: FastLane;
  private pumping: Promise<void> | null = null;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(options: IntegrationQueueOptions) {
    this.options = options;
    this.hub = path.resolve(options.hubPath);
    this.ownsLock = options.lock === undefined;
    this.lock = options.lock ?? localIntegrationLock();
    this.ledger = new MrLedger(options.log, options.runId);
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? 8));
    this.window = batchWindow(batchSize, Math.max(batchSize, options.maxBatchSize ?? batchSize));
    this.verifier = new CandidateVerifier(this.hub, options, this.stats);
    const reader = new ObjectReader(this.hub);
    this.lane = {
      reader,
      chain: new MainChain(reader, options.baseCommit),
      scratchRef: `refs/colony/candidate/${options.runId}`,
      landed: new Set(),
      stats: this.stats,
    };
    this.landing = new Landing(this.hub, options, this.stats, (mr, result) => this.resolve(mr, result));
    this.gate = new ApprovalGate(options, this.ledger, this.awaiting, {
      approve: (mr) => this.approve(mr),
      reject: (mr, output) => this.rejectAwaiting(mr, output),
      parked: (request) => this.answerParked(request),
    });
    this.intake = new Intake(
      { runId: options.runId, hub: this.hub, log: options.log, lock: this.lock, ledger: this.ledger },
      (branch, commit) => this.findLocal(branch, commit),
      (request) => {
        this.local.add(request.mr);
        this.queue.push(request);
        this.kick();
      },
    );
    this.recovered = this.human ? this.recoverParked() : Promise.resolve();
  }

  /** Gets the verify worktree (and setup) ready in the background, before the first request. */
  prepare(): void {
    this.verifier.prepare(this.options.baseCommit ?? MAIN_REF);
  }

  /** Who approves a verified request before it lands ('auto': nobody). */
  get approval(): 'auto' | 'manual' | 'human' {
    return this.options.approval ?? 'auto';
  }

  private get human(): boolean {
    return this.options.approval === 'human';
  }

  /** Queues the branch's current tip; resolves with the outcome (landed or rejected). */
  async submit(input: MergeRequestInput): Promise<MergeRequestResult> {
    const queued = await this.enqueue(input);
    if (!queued.ok) return { status: 'error', mr: null, error: queued.error };
    return this.outcome(queued.mr);
  }

  /** Queues the branch's current tip and returns its MR id without waiting for the outcome. */
  async enqueue(input: MergeRequestInput): Promise<EnqueueResult> {
    if (this.closed) return { ok: false, error: 'the integration queue is closed' };
    await this.recovered;
    return this.intake.admit(input);
  }

  /**
   * Takes up the requests an earlier process of the run accepted and never resolved (its owner was
   * killed): they are queued again under their ids (intake finds them in the log; a request that had
   * landed just before the kill is recognised by its landed ref). Peers submit and move on, so nobody
   * would ask again. `notify`: tell each author the outcome by direct message. Returns how many.
   */
  async resumePending(options: { notify: boolean }): Promise<number> {
    await this.recovered;
    await this.ledger.refresh();
    const open = [...this.ledger.requests.values()].filter(
      (r) => !this.ledger.outcomes.has(r.mr) && !this.ledger.parked.has(r.mr) && !this.local.has(r.mr),
    );
    await Promise.all(
      open.map((r) =>
        this.enqueue({
          agent: r.agent,
          branch: r.branch,
          commit: r.commit,
          note: r.note,
          notify: options.notify,
        }),
      ),
    );
    return open.length;
  }

  /** Resolves when the request is landed or rejected (by this or another queue of the run). */
  outcome(mr: number): Promise<MergeRequestResult> {
    return new Promise((resolve) => {
      const list = this.waiters.get(mr) ?? [];
      list.push(resolve);
      this.waiters.set(mr, list);
      if (!this.local.has(mr)) void this.resolveFromLog(mr);
    });
  }

  /**
   * What merge_request answers: the outcome, or, with approval 'human', that the request waits for
   * a person as soon as it is parked (the decision then reaches the requester as a direct message).
   */
  reply(mr: number): Promise<MergeRequestReply> {
    const outcome = this.outcome(mr);
    if (!this.human) return outcome;
    const parked = this.awaiting.get(mr);
    if (parked) return Promise.resolve(awaitingReply(parked));
    const whenParked = new Promise<MergeRequestReply>((resolve) => {
      const list = this.parkWaiters.get(mr) ?? [];
      list.push(resolve);
      this.parkWaiters.set(mr, list);
    });
    return Promise.race([outcome, whenParked]);
  }

  /**
   * Where a request stands now, without waiting: queued here (with its place), waiting for approval,
   * or its outcome from the log (also one another process of the run resolved).
   */
  async status(mr: number): Promise<MergeStatus> {
    const place = this.queue.findIndex((p) => p.mr === mr);
    if (place >= 0) return { status: 'queued', mr, ahead: place };
    if (this.awaiting.has(mr)) return { status: 'awaiting_approval', mr };
    if (this.local.has(mr)) return { status: 'integrating', mr };
    await this.ledger.refresh();
    const outcome = this.ledger.outcomes.get(mr);
    if (outcome)
      return {
        status: 'done',
        mr,
        result: resultFromLog(outcome, this.ledger.requests.get(mr)?.commit ?? ''),
      };
    if (this.ledger.requests.has(mr)) return { status: 'integrating', mr };
    return { status: 'unknown', mr };
  }

  /** MR ids that passed verification and wait for approve(). */
  awaitingApproval(): number[] {
    return [...this.awaiting.keys()].sort((a, b) => a - b);
  }

  /** The verified requests waiting for approval, oldest first. */
  awaitingRequests(): AwaitingRequest[] {
    return [...this.awaiting.values()]
      .sort((a, b) => a.mr - b.mr)
      .map(({ mr, agent, branch, commit, note }) => ({ mr, agent, branch, commit, note }));
  }

  /** Rejects a request waiting for approval (a reviewer said no): FAIL entry, message to the author. */
  async rejectAwaiting(mr: number, reason: string): Promise<boolean> {
    const request = this.awaiting.get(mr);
    if (!request) return false;
    this.awaiting.delete(mr);
    this.gate.update();
    const main = await readHubMain(this.hub);
    const files = main ? (await changeSince(this.hub, main, request.commit, 0)).files : [];
    await this.landing.reject(request, 'review_rejected', files, reason);
    return true;
  }

  /** Approves a request waiting in this queue: it is rebuilt on the then-current main and landed. */
  approve(mr: number): boolean {
    const request = this.awaiting.get(mr);
    if (!request) return false;
    this.awaiting.delete(mr);
    request.approved = true;
    this.queue.push(request);
    this.gate.update();
    this.kick();
    return true;
  }

  /** Reads the decisions logged since the last look now (not at the next poll) and applies those that count. */
  async readDecisions(): Promise<void> {
    await this.gate.poll();
  }

  /** Resolves when nothing is queued or being integrated (awaiting approval does not count). */
  idle(): Promise<void> {
    if (this.pumping === null && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops taking requests and waits until nothing is queued or in flight; with approval 'human', also
   * until every parked request is decided, unless `signal` aborts (the run is ending).
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.recovered;
    await this.idle();
    const signal = this.options.signal;
    while (this.human && this.awaiting.size > 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        this.settleWaiters.push(resolve);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      await this.idle();
    }
    this.gate.close();
    this.lane.reader.close();
    if (this.ownsLock) await this.lock.close();
  }

  // ——— processing ———

  private kick(): void {
    if (this.pumping !== null) return;
    this.pumping = this.drain().finally(() => {
      this.pumping = null;
      if (this.queue.length > 0) this.kick();
      else for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      await this.lock
        .withLock(this.options.runId, 'integrate', async () => {
          await this.ledger.refresh();
          const batch = takeBatch(this.queue, this.window.size, this.ledger, (mr, result) =>
            this.resolve(mr, result),
          );
          if (batch.length === 0) return;
          try {
            await this.integrate(batch);
          } catch (error) {
            // Unexpected (a store or file-system failure): whatever is unresolved is rejected, visibly.
            const message = `integration error: ${(error as Error).message}`;
            for (const request of batch) {
              const requeued = this.queue.includes(request) || this.awaiting.has(request.mr);
              if (this.local.has(request.mr) && !requeued)
                await this.landing.reject(request, 'error', [], message);
            }
          }
        })
        .catch(async (error: unknown) => {
          // The lock itself failed (database down): retry after a pause rather than spin.
          await this.landing.warn(`integration lock failed: ${(error as Error).message}`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        });
    }
  }

  /**
   * Builds the batch on main, verifies it, lands it (or parks it for approval); on failure splits it
   * in halves. Requests that conflict only with an earlier member are put back in the queue.
   */
  private async integrate(pending: Pending[], isTop = true): Promise<void> {
    const batch: Pending[] = [];
    for (const request of pending) {
      if (!request.resumed || !(await this.landing.recoverLanded(request))) batch.push(request);
    }
    if (batch.length === 0) return;
    await this.guardMain();
    const main = await readHubMain(this.hub);
    if (main === null) throw new Error(`hub ${this.hub} has no ${HUB_MAIN}`);
    const { applied, deferred, top, topTree } = await buildCandidate(
      this.hub,
      main,
      batch,
      (...args) => this.landing.reject(...args),
      this.lane,
    );
    // Deferred requests are retried alone against the main this batch leaves behind.
    this.queue.unshift(...deferred);
    if (applied.length === 0) return;
    this.stats.candidates++;
    let verdict = await this.verifier.verify(top, topTree);
    // A failing batch of several: verify again before paying for a bisection (a flaky check). Only
    // the batch as taken: once a retry failed too, the failure is real and its halves are not retried.
    for (let retry = 0; isTop && !verdict.passed && !verdict.setupFailed && applied.length > 1; retry++) {
      if (retry >= (this.options.flakeRetries ?? 1)) break;
      this.stats.flakeRetries++;
      const again = await this.verifier.verify(top, topTree, { fresh: true });
      if (again.passed) verdict = { passed: true, summary: `${again.summary} (passed on a retry: flaky?)` };
    }
    if (isTop) {
      if (verdict.passed) this.window.passed(applied.length);
      else if (applied.length > 1) this.window.failed();
    }
    if (verdict.passed) {
      await this.landOrPark(applied, main, verdict.summary);
      return;
    }
    if (verdict.setupFailed || applied.length === 1) {
      const reason: RejectReason = verdict.setupFailed ? 'error' : 'verify_failed';
      for (const { request, parent, commit } of applied) {
        const files = await changedFiles(this.hub, parent, commit);
        await this.landing.reject(request, reason, files, verdict.output);
      }
      return;
    }
    const half = Math.ceil(applied.length / 2);
    await this.integrate(
      applied.slice(0, half).map((a) => a.request),
      false,
    );
    await this.integrate(
      applied.slice(half).map((a) => a.request),
      false,
    );
  }

  /** Puts main back where this run's queue last left it if something else moved it (main-guard.ts). */
  private async guardMain(): Promise<void> {
    await this.ledger.refresh();
    const expected = this.ledger.landed.at(-1)?.commit ?? this.options.baseCommit;
    if (!expected) return;
    const check = await guardMain(this.hub, expected);
    if (!check.ok) throw new Error(check.error);
    if (check.value.moved) await this.landing.warn(movedMainWarning(check.value));
  }

  private async landOrPark(applied: Applied[], mainBefore: string, verifySummary: string): Promise<void> {
    const manual = this.options.approval === 'manual' || this.human;
    if (manual && !applied.every((a) => a.request.approved)) {
      for (const { request, commit } of applied) await this.gate.park(request, commit, verifySummary);
      return;
    }
    const landed = await this.landing.land(applied, mainBefore, verifySummary);
    if (landed.ok) {
      for (const { request } of applied) this.lane.landed.add(request.commit);
      return;
    }
    // main moved under us (something outside the queue): rebuild on the new main.
    await this.landing.warn(`landing on ${HUB_MAIN} failed (${landed.error}); retrying the batch`);
    const retry = applied.map((a) => a.request);
    for (const request of retry) {
      request.landRetries++;
      if (request.landRetries > MAX_LAND_RETRIES)
        await this.landing.reject(request, 'error', [], `could not land: ${landed.error}`);
    }
    this.queue.unshift(...retry.filter((r) => r.landRetries <= MAX_LAND_RETRIES));
  }

  // ——— bookkeeping ———

  private findLocal(branch: string, commit: string): Pending | undefined {
    const all = [...this.queue, ...this.awaiting.values()];
    return all.find((p) => p.branch === branch && p.commit === commit);
  }

  private async resolveFromLog(mr: number): Promise<void> {
    await this.ledger.refresh().catch(() => {});
    const outcome = this.ledger.outcomes.get(mr);
    const request = this.ledger.requests.get(mr);
    if (outcome) this.resolve(mr, resultFromLog(outcome, request?.commit ?? ''));
    else if (!request)
      this.resolve(mr, { status: 'error', mr: null, error: `no merge request ${mr} in this run` });
  }

  private resolve(mr: number, result: MergeRequestResult): void {
    const list = this.waiters.get(mr) ?? [];
    this.waiters.delete(mr);
    this.parkWaiters.delete(mr);
    this.local.delete(mr);
    for (const resolve of list) resolve(result);
    for (const wake of this.settleWaiters.splice(0)) wake();
  }

  private answerParked(request: Pending): void {
    const list = this.parkWaiters.get(request.mr) ?? [];
    this.parkWaiters.delete(request.mr);
    for (const resolve of list) resolve(awaitingReply(request));
  }

  /**
   * Requests a previous process of the run parked (their merge_request already answered, so nobody
   * submits them again) come back into this queue: verified again and parked, or landed or rejected
   * at once when the decision is already in the log.
   */
  private async recoverParked(): Promise<void> {
    try {
      await this.ledger.refresh();
    } catch (error) {
      await this.landing.warn(`could not read parked merge requests: ${(error as Error).message}`);
      return;
    }
    for (const record of this.ledger.requests.values()) {
      const { mr } = record;
      if (!this.ledger.parked.has(mr) || this.ledger.outcomes.has(mr) || this.local.has(mr)) continue;
      this.local.add(mr);
      this.queue.push({
        mr,
        agent: record.agent,
        branch: record.branch,
        commit: record.commit,
        note: record.note,
        approved: this.ledger.approvals.has(mr),
        landRetries: 0,
        parked: { verify: '' },
      });
    }
    if (this.queue.length > 0) this.kick();
  }
}

function awaitingReply(request: Pending): MergeRequestReply {
  return {
    status: 'awaiting_approval',
    mr: request.mr,
    agentCommit: request.commit,
    verify: request.parked?.verify ?? '',
  };
}
