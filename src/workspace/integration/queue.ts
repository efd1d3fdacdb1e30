/**
 * The serial integration queue of one run. Requests wait in memory (their ids and outcomes are in
 * the event log); one candidate at a time, across every queue of the run (see lock.ts), is built on
 * the latest hub main with `git merge-tree`, checked out in the one integration worktree, verified,
 * and landed by moving hub main in one guarded ref transaction. Several queued requests are tested
 * as one batch; a failing batch is split in halves until the bad requests are found.
 *
 * Nothing is deleted: an agent's submitted commit is pinned as refs/colony/mr/<id>, each landed
 * commit as refs/colony/landed/<id>, and agent branches are never moved.
 */
import path from 'node:path';
import type { EventInput, EventKind } from '../../core/events.js';
import { git, gitError } from '../git.js';
import { HUB_MAIN } from '../hub.js';
import { runShellCommand } from '../shell-command.js';
import { addWorktree } from '../worktree.js';
import {
  changedFiles,
  changeSince,
  commitTree,
  mergeTrees,
  revParse,
  treeOf,
  updateRefs,
} from './hub-git.js';
import { MrLedger, type OutcomeRecord } from './ledger.js';
import { type IntegrationLock, localIntegrationLock } from './lock.js';
import {
  clip,
  failSummary,
  landedMessage,
  lastLines,
  OUTPUT_TAIL,
  rejectionDirectMessage,
  SUMMARY_MAX,
  tail,
} from './texts.js';
import type {
  AwaitingRequest,
  IntegrationQueueOptions,
  IntegrationStats,
  MergeRequestInput,
  MergeRequestResult,
  RejectReason,
} from './types.js';

const MAIN_REF = `refs/heads/${HUB_MAIN}`;
const VERIFY_CACHE = 256;
const MAX_LAND_RETRIES = 3;

interface Pending {
  mr: number;
  agent: string;
  branch: string;
  commit: string;
  note: string;
  approved: boolean;
  landRetries: number;
}

interface Applied {
  request: Pending;
  parent: string;
  commit: string;
}

type Verdict =
  | { passed: true; summary: string }
  | { passed: false; setupFailed: boolean; summary: string; output: string };

export type EnqueueResult = { ok: true; mr: number; commit: string } | { ok: false; error: string };

export class IntegrationQueue {
  readonly stats: IntegrationStats = { candidates: 0, verifyRuns: 0, verifyMs: 0, landed: 0, rejected: 0 };
  private readonly options: IntegrationQueueOptions;
  private readonly hub: string;
  private readonly lock: IntegrationLock;
  private readonly ownsLock: boolean;
  private readonly ledger: MrLedger;
  private readonly batchSize: number;
  private readonly queue: Pending[] = [];
  private readonly awaiting = new Map<number, Pending>();
  private readonly waiters = new Map<number, ((result: MergeRequestResult) => void)[]>();
  /** MRs queued, in flight or parked in this instance and not yet resolved. */
  private readonly local = new Set<number>();
  /** Verify results by tree: a tree verified once is not verified again (bisection re-builds trees). */
  private readonly verdicts = new Map<string, Verdict>();
  private pumping: Promise<void> | null = null;
  private idleWaiters: (() => void)[] = [];
  private worktree: string | null = null;
  private setupDone = false;
  private approvalTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(options: IntegrationQueueOptions) {
    this.options = options;
    this.hub = path.resolve(options.hubPath);
    this.ownsLock = options.lock === undefined;
    this.lock = options.lock ?? localIntegrationLock();
    this.ledger = new MrLedger(options.log, options.runId);
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 8));
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
    const commit = await revParse(this.hub, `refs/heads/${input.branch}^{commit}`);
    if (commit === null) return { ok: false, error: `branch ${input.branch} does not exist in the hub` };
    try {
      return await this.lock.withLock(this.options.runId, 'ids', async () => {
        await this.ledger.refresh();
        const known = this.findLocal(input.branch, commit);
        if (known) return { ok: true as const, mr: known.mr, commit };
        const previous = this.ledger.pendingFor(input.branch, commit);
        const mr = previous?.mr ?? this.ledger.maxId() + 1;
        if (!previous) {
          const pinned = await updateRefs(this.hub, [{ ref: `refs/colony/mr/${mr}`, to: commit }]);
          if (!pinned.ok) return { ok: false as const, error: `could not pin ${commit}: ${pinned.error}` };
          await this.options.log.append({
            runId: this.options.runId,
            agent: input.agent,
            kind: 'merge.requested',
            data: { mr, branch: input.branch, commit, note: input.note },
          });
          await this.ledger.refresh();
        }
        this.local.add(mr);
        const { preApproved, ...request } = input;
        this.queue.push({ mr, ...request, commit, approved: preApproved === true, landRetries: 0 });
        this.kick();
        return { ok: true as const, mr, commit };
      });
    } catch (error) {
      return { ok: false, error: `could not queue the merge request: ${(error as Error).message}` };
    }
  }

  /** Resolves when the request is landed or rejected (by this or another queue of the run). */
  outcome(mr: number): Promise<MergeRequestResult> {
    return new Promise((resolve) => {
      const list = this.waiters.get(mr) ?? [];
      list.push(resolve);
      this.waiters.set(mr, list);
      if (!this.isLocal(mr)) void this.resolveFromLog(mr);
    });
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
    this.updateApprovalPolling();
    const main = await revParse(this.hub, MAIN_REF);
    const files = main ? (await changeSince(this.hub, main, request.commit, 0)).files : [];
    await this.reject(request, 'review_rejected', files, reason);
    return true;
  }

  /** Approves a request waiting in this queue: it is rebuilt on the then-current main and landed. */
  approve(mr: number): boolean {
    const request = this.awaiting.get(mr);
    if (!request) return false;
    this.awaiting.delete(mr);
    request.approved = true;
    this.queue.push(request);
    this.updateApprovalPolling();
    this.kick();
    return true;
  }

  /** Resolves when nothing is queued or being integrated (awaiting approval does not count). */
  idle(): Promise<void> {
    if (this.pumping === null && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
    if (this.approvalTimer) clearInterval(this.approvalTimer);
    this.approvalTimer = null;
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
          const batch = this.takeBatch();
          if (batch.length === 0) return;
          try {
            await this.integrate(batch);
          } catch (error) {
            // Unexpected (a store or file-system failure): whatever is unresolved is rejected, visibly.
            const message = `integration error: ${(error as Error).message}`;
            for (const request of batch) {
              const requeued = this.queue.includes(request) || this.awaiting.has(request.mr);
              if (this.local.has(request.mr) && !requeued) await this.reject(request, 'error', [], message);
            }
          }
        })
        .catch(async (error: unknown) => {
          // The lock itself failed (database down): retry after a pause rather than spin.
          await this.warn(`integration lock failed: ${(error as Error).message}`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        });
    }
  }

  /** Up to batchSize queued requests, skipping those already resolved elsewhere. */
  private takeBatch(): Pending[] {
    const batch: Pending[] = [];
    while (this.queue.length > 0 && batch.length < this.batchSize) {
      const next = this.queue[0] as Pending;
      const outcome = this.ledger.outcomes.get(next.mr);
      if (outcome) {
        this.queue.shift();
        this.resolve(next.mr, resultFromLog(outcome, next.commit));
        continue;
      }
      // In manual mode a batch is all approved or all unapproved, so its verdict means one thing.
      if (batch.length > 0 && (batch[0] as Pending).approved !== next.approved) break;
      batch.push(next);
      this.queue.shift();
    }
    return batch;
  }

  /**
   * Builds the batch on main, verifies it, lands it (or marks it awaiting approval); on failure
   * splits it in halves. Requests that conflict only with an earlier member are put back in the queue.
   */
  private async integrate(batch: Pending[]): Promise<void> {
    const main = await revParse(this.hub, MAIN_REF);
    if (main === null) throw new Error(`hub ${this.hub} has no ${HUB_MAIN}`);
    const applied: Applied[] = [];
    const deferred: Pending[] = [];
    let top = main;
    let topTree = await treeOf(this.hub, main);
    for (const request of batch) {
      const merged = await mergeTrees(this.hub, top, request.commit);
      if (merged.kind === 'error') {
        await this.reject(request, 'error', [], merged.error);
        continue;
      }
      const alone = applied.length === 0;
      if (merged.kind === 'conflict') {
        if (alone) await this.reject(request, 'conflict', merged.files, conflictOutput(merged.files));
        else deferred.push(request);
        continue;
      }
      if (merged.tree === topTree) {
        if (alone) await this.reject(request, 'nothing_to_merge', [], '');
        else deferred.push(request);
        continue;
      }
      const message = landedMessage(request.note, request.mr, request.agent, request.commit);
      const made = await commitTree(this.hub, merged.tree, top, message, request.agent);
      if (!made.ok) {
        await this.reject(request, 'error', [], made.error);
        continue;
      }
      applied.push({ request, parent: top, commit: made.commit });
      top = made.commit;
      topTree = merged.tree;
    }
    // Deferred requests are retried alone against the main this batch leaves behind.
    this.queue.unshift(...deferred);
    if (applied.length === 0) return;
    this.stats.candidates++;
    const verdict = await this.verifyCandidate(top, topTree ?? top);
    if (verdict.passed) {
      await this.landOrPark(applied, main, verdict.summary);
      return;
    }
    if (verdict.setupFailed || applied.length === 1) {
      const reason: RejectReason = verdict.setupFailed ? 'error' : 'verify_failed';
      for (const { request, parent, commit } of applied) {
        await this.reject(request, reason, await changedFiles(this.hub, parent, commit), verdict.output);
      }
      return;
    }
    const half = Math.ceil(applied.length / 2);
    await this.integrate(applied.slice(0, half).map((a) => a.request));
    await this.integrate(applied.slice(half).map((a) => a.request));
  }

  private async landOrPark(applied: Applied[], mainBefore: string, verifySummary: string): Promise<void> {
    const manual = this.options.approval === 'manual';
    if (manual && !applied.every((a) => a.request.approved)) {
      for (const { request, commit } of applied) await this.park(request, commit);
      return;
    }
    const top = (applied[applied.length - 1] as Applied).commit;
    const landed = await updateRefs(this.hub, [
      { ref: MAIN_REF, to: top, expectOld: mainBefore },
      ...applied.map((a) => ({ ref: `refs/colony/landed/${a.request.mr}`, to: a.commit })),
    ]);
    if (!landed.ok) {
      // main moved under us (something outside the queue): rebuild on the new main.
      await this.warn(`landing on ${HUB_MAIN} failed (${landed.error}); retrying the batch`);
      const retry = applied.map((a) => a.request);
      for (const request of retry) {
        request.landRetries++;
        if (request.landRetries > MAX_LAND_RETRIES)
          await this.reject(request, 'error', [], `could not land: ${landed.error}`);
      }
      this.queue.unshift(...retry.filter((r) => r.landRetries <= MAX_LAND_RETRIES));
      return;
    }
    const batch = applied.map((a) => a.request.mr);
    // The batch has landed: its events, PATCH entries and answers go out together (group commit).
    const filesOf = await Promise.all(applied.map((a) => changedFiles(this.hub, a.parent, a.commit)));
    this.stats.landed += applied.length;
    await Promise.all(
      applied.map(({ request, commit }) =>
        this.append({
          runId: this.options.runId,
          agent: request.agent,
          kind: 'merge.landed',
          data: { mr: request.mr, commit, mainBefore, batch },
        }),
      ),
    );
    await Promise.all(
      applied.map(({ request, commit }, i) => {
        const files = filesOf[i] ?? [];
        return this.hook(() =>
          this.options.hooks.postEntry({
            author: request.agent,
            kind: 'PATCH',
            summary: clip(`MR ${request.mr} landed as ${commit.slice(0, 10)}: ${request.note}`, SUMMARY_MAX),
            detail: [
              `landed commit: ${commit}`,
              `agent commit: ${request.commit} (refs/colony/mr/${request.mr}, branch ${request.branch})`,
              `files: ${files.join(', ')}`,
              `idea: ${request.note}`,
              `evidence: ${verifySummary}`,
              `batch: ${batch.join(', ')}; main before: ${mainBefore}`,
            ].join('\n'),
            scope: files,
          }),
        );
      }),
    );
    applied.forEach(({ request, commit }, i) => {
      this.resolve(request.mr, {
        status: 'landed',
        mr: request.mr,
        commit,
        agentCommit: request.commit,
        mainBefore,
        batch,
        files: filesOf[i] ?? [],
        verify: verifySummary,
      });
    });
  }

  private async park(request: Pending, commit: string): Promise<void> {
    this.awaiting.set(request.mr, request);
    await this.append({
      runId: this.options.runId,
      agent: request.agent,
      kind: 'merge.awaiting_approval',
      data: { mr: request.mr, commit },
    });
    this.updateApprovalPolling();
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

  private async reject(
    request: Pending,
    reason: RejectReason,
    files: string[],
    output: string,
  ): Promise<void> {
    this.stats.rejected++;
    const kept = tail(output, OUTPUT_TAIL);
    await this.append({
      runId: this.options.runId,
      agent: request.agent,
      kind: 'merge.rejected',
      data: { mr: request.mr, reason, files, output: kept },
    });
    // An empty change is not a failure anyone else needs to hear about; the requester gets the result.
    if (reason !== 'nothing_to_merge') {
      await this.hook(() =>
        this.options.hooks.postEntry({
          author: request.agent,
          kind: 'FAIL',
          summary: failSummary(request.mr, reason, files, output),
          detail: [
            `merge request ${request.mr} (${request.branch} at ${request.commit}): ${reason}`,
            `note: ${request.note}`,
            files.length > 0 ? `files: ${files.join(', ')}` : '',
            `output (tail):\n${kept}`,
          ]
            .filter((line) => line !== '')
            .join('\n'),
          scope: files,
        }),
      );
      await this.hook(() =>
        this.options.hooks.sendDirect(
          request.agent,
          this.options.sender ?? 'integration',
          rejectionDirectMessage(request.mr, reason, files, output),
        ),
      );
    }
    this.resolve(request.mr, {
      status: 'rejected',
      mr: request.mr,
      agentCommit: request.commit,
      reason,
      files,
      output: kept,
    });
  }

  // ——— the integration worktree ———

  private async verifyCandidate(commit: string, tree: string): Promise<Verdict> {
    const known = this.verdicts.get(tree);
    if (known) return known;
    const wt = await this.checkout(commit);
    if (!wt.ok) return { passed: false, setupFailed: true, summary: wt.error, output: wt.error };
    const env = this.options.env ?? process.env;
    if (this.options.setup && !this.setupDone) {
      const setup = await runShellCommand(this.options.setup, wt.path, { env });
      if (setup.exitCode !== 0) {
        const summary = `setup \`${this.options.setup}\` failed (exit ${setup.exitCode})`;
        return { passed: false, setupFailed: true, summary, output: `${summary}\n${setup.output}` };
      }
      this.setupDone = true;
    }
    if (!this.options.verify) return { passed: true, summary: 'no verify command configured' };
    this.stats.verifyRuns++;
    const run = await runShellCommand(this.options.verify, wt.path, {
      env,
      timeoutMs: this.options.verifyTimeoutMs,
    });
    this.stats.verifyMs += run.durationMs;
    const seconds = (run.durationMs / 1000).toFixed(1);
    const verdict: Verdict =
      run.exitCode === 0
        ? {
            passed: true,
            summary: clip(
              `\`${this.options.verify}\` passed in ${seconds} s: ${lastLines(run.output, 2)}`,
              400,
            ),
          }
        : {
            passed: false,
            setupFailed: false,
            summary: `\`${this.options.verify}\` ${run.timedOut ? 'timed out' : `failed (exit ${run.exitCode})`}`,
            output: run.output,
          };
    this.verdicts.set(tree, verdict);
    if (this.verdicts.size > VERIFY_CACHE) this.verdicts.delete(this.verdicts.keys().next().value as string);
    return verdict;
  }

  /** The one integration worktree (branch integration/<run>), reset to exactly `commit`. */
  private async checkout(commit: string): Promise<{ ok: true; path: string } | { ok: false; error: string }> {
    if (this.worktree === null) {
      const wtPath = path.join(path.resolve(this.options.workRoot), 'integration');
      const added = await addWorktree(this.hub, wtPath, `integration/${this.options.runId}`, commit);
      if (!added.ok) return { ok: false, error: `integration worktree: ${added.error}` };
      this.worktree = added.path;
    }
    const cwd = this.worktree;
    const reset = await git(['reset', '--hard', '--quiet', commit], { cwd });
    if (!reset.ok) return { ok: false, error: `could not check out ${commit}: ${gitError(reset)}` };
    // Untracked files from the previous candidate go; ignored ones (setup's node_modules) stay.
    const clean = await git(['clean', '-ffdq'], { cwd });
    if (!clean.ok)
      return { ok: false, error: `could not clean the integration worktree: ${gitError(clean)}` };
    return { ok: true, path: cwd };
  }

  // ——— bookkeeping ———

  private findLocal(branch: string, commit: string): Pending | undefined {
    const all = [...this.queue, ...this.awaiting.values()];
    return all.find((p) => p.branch === branch && p.commit === commit);
  }

  private isLocal(mr: number): boolean {
    return this.local.has(mr);
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
    this.local.delete(mr);
    for (const resolve of list) resolve(result);
  }

  private updateApprovalPolling(): void {
    if (this.awaiting.size === 0 && this.approvalTimer) {
      clearInterval(this.approvalTimer);
      this.approvalTimer = null;
    } else if (this.awaiting.size > 0 && !this.approvalTimer) {
      this.approvalTimer = setInterval(() => void this.pollApprovals(), this.options.approvalPollMs ?? 1000);
      this.approvalTimer.unref();
    }
  }

  /** Approvals recorded by other processes (`approveFromOutside`). */
  private async pollApprovals(): Promise<void> {
    await this.ledger.refresh().catch(() => {});
    for (const mr of [...this.awaiting.keys()]) if (this.ledger.approvals.has(mr)) this.approve(mr);
  }

  private async append<K extends EventKind>(event: EventInput<K>): Promise<void> {
    await this.options.log.append(event);
  }

  private async warn(message: string): Promise<void> {
    await this.options.log
      .append({ runId: this.options.runId, agent: null, kind: 'warning', data: { message } })
      .catch(() => {});
  }

  /** Hooks are other services: their failure is logged, never a reason to undo a landing. */
  private async hook(call: () => Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      await this.warn(`integration hook failed: ${(error as Error).message}`);
    }
  }
}

function conflictOutput(files: string[]): string {
  return `CONFLICT: the change does not apply cleanly on main in ${files.join(', ')}`;
}

function resultFromLog(outcome: OutcomeRecord, agentCommit: string): MergeRequestResult {
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
