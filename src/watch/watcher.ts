/**
 * `colony watch`: the loop. Every poll it carries each taken issue one step further — its run
 * started, the run id commented, a stalled run stopped, a finished run published (push + pull
 * request through forge/publish.ts) and its outcome commented — then takes new labelled issues while
 * fewer than `maxRuns` are under way. Everything it knows is in Postgres (watch-table.ts) and on the
 * issues (comment markers), so a watch killed at any point and started again carries on where it was
 * and never starts an issue's run twice. A failure (forge or database) is printed and waited out with
 * a growing pause (backoff.ts); it never ends the watch.
 */
import { newRunId } from '../core/ids.js';
import type { ForgeApi, PreparedPublish } from '../forge/index.js';
import { publishRun } from '../forge/index.js';
import type { Result } from '../lang/result.js';
import { requestRunStop } from '../run/stop.js';
import type { Store } from '../store/index.js';
import { type Backoff, backoff, forgeErrorHint, forgeStatus } from './backoff.js';
import { type CommentKind, finishedComment, marker, type RunOutcome, startedComment } from './comments.js';
import { goalOf } from './goal.js';
import { type RunProcess, startRunProcess } from '../runner/run-process.js';
import { type RunProgress, runProgress } from './run-progress.js';
import { type TakenIssue, type WatchedRepo, type WatchTable, watchTable } from './watch-table.js';

export interface WatchOptions {
  store: Store;
  api: ForgeApi;
  where: WatchedRepo;
  label: string;
  /** The local clone runs work on (and publish from). */
  clone: string;
  /** The usual `colony run` flags, passed on to each run. */
  runArgs: readonly string[];
  /** The push and pull request, checked once at the start (forge/publish.ts). */
  publish: PreparedPublish;
  /** At most this many issues under way at once. */
  maxRuns: number;
  /** A running run whose log has not moved for this long is stopped. */
  stallMs: number;
  pollMs: number;
  /** The longest pause after failures in a row. */
  maxBackoffMs: number;
  /** The token's variable, for hints. */
  tokenVariable: string;
  /** The environment of each `colony run` (without the forge's token). */
  runEnv: NodeJS.ProcessEnv;
  /** Where each run's output goes. */
  outputFolder: string;
  say(line: string): void;
}

/** A finished run's publish is tried this many times before the issue is told it failed. */
const MAX_PUBLISH_TRIES = 5;

/** A forge's refusal, carried up to the loop (which prints it with a hint and waits). */
class ForgeError extends Error {}

function must<T>(result: Result<T>): T {
  if (!result.ok) throw new ForgeError(result.error);
  return result.value;
}

export class Watcher {
  private readonly table: WatchTable;
  private readonly pause: Backoff;
  /** The `colony run` processes this watch started, by run id, and whether the row was older. */
  private readonly processes = new Map<string, { process: RunProcess; restarted: boolean }>();
  /** Per running run: the last seq seen, since when, and whether it was asked to stop. */
  private readonly progress = new Map<string, { seq: number; since: number; stopping: boolean }>();
  /** Rows that were in the table when this watch started (a start of theirs may be under way). */
  private readonly inherited = new Set<string>();
  /** Failed publishes per finished run (given up after MAX_PUBLISH_TRIES). */
  private readonly publishFailures = new Map<string, number>();
  private first = true;
  private stopped = false;
  private wake: (() => void) | null = null;

  constructor(private readonly o: WatchOptions) {
    this.table = watchTable(o.store.pool, o.where);
    this.pause = backoff(Math.max(o.pollMs, 1_000), o.maxBackoffMs);
  }

  /** Polls until stop(). */
  async run(): Promise<void> {
    while (!this.stopped) {
      let wait = this.o.pollMs;
      try {
        await this.tick();
        this.pause.succeeded();
      } catch (error) {
        wait = this.pause.failed();
        const message = (error as Error).message;
        const hint =
          error instanceof ForgeError ? `${forgeErrorHint(message, this.o.tokenVariable)}: ` : 'error: ';
        this.o.say(`${hint}${message}; trying again in ${Math.ceil(wait / 1000)} s`);
      }
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Ends the loop after the step under way. The runs go on (the next watch follows them). */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** One pass: every taken issue one step further, then new issues while there is room. */
  async tick(): Promise<void> {
    const taken = await this.table.all();
    if (this.first) {
      for (const row of taken) if (!row.finished) this.inherited.add(row.runId);
      this.first = false;
    }
    // One issue's failure does not hold the others up; the first is reported (and waited out) after.
    const failures: unknown[] = [];
    for (const row of taken) {
      if (row.finished || this.stopped) continue;
      await this.advance(row).catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw failures[0];
    if (this.stopped) return;
    const under = (await this.table.all()).filter((r) => !r.finished).length;
    if (under >= this.o.maxRuns) return;
    const known = new Set(taken.map((r) => r.issue));
    const issues = must(await this.o.api.listIssues(this.o.label));
    let room = this.o.maxRuns - under;
    for (const issue of issues) {
      if (room <= 0 || this.stopped) break;
      if (known.has(issue.number)) continue;
      const row = await this.table.take(issue.number, newRunId(), goalOf(issue));
      if (!row) continue; // another watch took it first
      room--;
      this.o.say(`issue #${issue.number}: run ${row.runId} starting`);
      this.start(row);
    }
  }

  private start(row: TakenIssue): void {
    const process = startRunProcess({
      runId: row.runId,
      goal: row.goal,
      repo: this.o.clone,
      runArgs: this.o.runArgs,
      folder: this.o.outputFolder,
      env: this.o.runEnv,
    });
    this.processes.set(row.runId, { process, restarted: this.inherited.has(row.runId) });
  }

  private async advance(row: TakenIssue): Promise<void> {
    const progress = await runProgress(this.o.store, row.runId);
    if (progress.state === 'absent') return this.notRecorded(row);
    if (!row.startedCommented) {
      await this.comment(row.issue, 'started', row.runId, startedComment(row.runId, progress.topology));
      await this.table.markStartCommented(row.issue);
      this.o.say(`issue #${row.issue}: run ${row.runId} started (commented)`);
    }
    if (progress.state === 'running') return this.watchStall(row, progress.lastSeq);
    const outcome = await this.publish(row.runId, progress);
    await this.comment(row.issue, 'finished', row.runId, finishedComment(row.runId, outcome));
    await this.table.finish(row.issue, JSON.stringify(outcome));
    this.progress.delete(row.runId);
    this.processes.delete(row.runId);
    this.publishFailures.delete(row.runId);
    const where = outcome.pullRequest
      ? outcome.pullRequest.url
      : `no pull request (${outcome.noPullRequest})`;
    this.o.say(`issue #${row.issue}: run ${row.runId} ${outcome.status}; ${where}`);
  }

  /**
   * The run is not recorded: its `colony run` is starting, or has not been started (the watch was
   * killed between taking the issue and starting it: started now, under the same id), or ended
   * before recording it (a usage or setup problem).
   */
  private async notRecorded(row: TakenIssue): Promise<void> {
    const started = this.processes.get(row.runId);
    if (!started) return this.start(row);
    const code = started.process.exitCode();
    if (code === null) return;
    // It may have recorded the run just before ending.
    if ((await runProgress(this.o.store, row.runId)).state !== 'absent') return;
    this.processes.delete(row.runId);
    const tail = started.process.outputTail().replace(/\s*\n\s*/g, ' | ');
    if (started.restarted) {
      // A start by the killed watch could still record this id: the issue stays taken.
      const outcome: RunOutcome = {
        status: 'not started',
        reason: `colony run exited ${code}`,
        pullRequest: null,
        noPullRequest: 'the run could not be started',
      };
      await this.comment(row.issue, 'finished', row.runId, finishedComment(row.runId, outcome));
      await this.table.finish(row.issue, JSON.stringify(outcome));
      this.o.say(`issue #${row.issue}: colony run ${row.runId} exited ${code} before starting: ${tail}`);
      return;
    }
    // Only this watch ever had this id, and its run was never recorded: the issue is given back.
    await this.table.release(row.issue, row.runId);
    throw new Error(`issue #${row.issue}: colony run exited ${code} before starting the run: ${tail}`);
  }

  private async watchStall(row: TakenIssue, seq: number): Promise<void> {
    const now = Date.now();
    const seen = this.progress.get(row.runId);
    if (!seen || seen.seq !== seq) {
      // The stop request is an event too: a run asked to stop is not asked again.
      this.progress.set(row.runId, { seq, since: now, stopping: seen?.stopping ?? false });
      return;
    }
    if (seen.stopping || now - seen.since < this.o.stallMs) return;
    seen.stopping = true;
    const reason = `no progress for ${Math.round(this.o.stallMs / 1000)} s (colony watch --stall-timeout)`;
    const stop = await requestRunStop(this.o.store, row.runId, 'colony watch', reason);
    this.o.say(
      `issue #${row.issue}: run ${row.runId} stalled: ${stop.ok ? `stop ${stop.mode}` : stop.error}`,
    );
  }

  /** The run's result pushed and its pull request opened (or found: publishing is idempotent). */
  private async publish(
    runId: string,
    run: Extract<RunProgress, { state: 'finished' }>,
  ): Promise<RunOutcome> {
    const base = { status: run.status, reason: run.reason };
    if (run.resultBranch === null)
      return { ...base, pullRequest: null, noPullRequest: 'the run landed nothing' };
    const published = await publishRun(this.o.store.log, runId, this.o.publish);
    if (!published.ok) {
      const status = forgeStatus(published.error);
      const tries = (this.publishFailures.get(runId) ?? 0) + 1;
      this.publishFailures.set(runId, tries);
      // A refusal of the request itself (422, 409, …) is the outcome; a forge that is down, limiting
      // or refusing the token, or a push that failed, is tried again after a pause, a few times.
      const refused = status !== null && status >= 400 && status < 500 && ![401, 403, 429].includes(status);
      if (!refused && tries < MAX_PUBLISH_TRIES) throw new ForgeError(published.error);
      this.o.say(`run ${runId}: publishing failed (${tries}×): ${published.error}`);
      return { ...base, pullRequest: null, noPullRequest: 'the pull request could not be opened' };
    }
    const pr = published.value.pullRequests[0];
    return pr
      ? { ...base, pullRequest: { url: pr.url, draft: pr.draft }, noPullRequest: null }
      : { ...base, pullRequest: null, noPullRequest: 'none was opened' };
  }

  /**
   * Posts a comment unless the issue has it already (a watch killed after posting it). An issue the
   * forge no longer has (404, 410: deleted, moved) gets none: said, and not tried again.
   */
  private async comment(issue: number, kind: CommentKind, runId: string, text: string): Promise<void> {
    const existing = await this.o.api.listComments(issue);
    const posted = existing.ok
      ? existing.value.some((c) => c.body.includes(marker(kind, runId)))
        ? null
        : await this.o.api.addComment(issue, text)
      : existing;
    if (posted === null || posted.ok) return;
    const status = forgeStatus(posted.error);
    if (status === 404 || status === 410) {
      this.o.say(`issue #${issue}: not on the forge any more (${posted.error}); no ${kind} comment`);
      return;
    }
    throw new ForgeError(posted.error);
  }
}
