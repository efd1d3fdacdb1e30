/**
 * `GET /api/needs-you`: what waits for a person across runs, newest run first. Only recent runs are
 * looked at (the newest `RECENT_RUNS`, and of the finished ones those that ended in the last
 * `FINISHED_WINDOW_MS`), and each run's log is folded incrementally (only the events after the last
 * one seen are read, and only the kinds that matter), so the list stays cheap however long the
 * history or a run is. Running (and interrupted) runs: merges awaiting approval, stalled agents,
 * budgets past 80 %, limits hit — the notifier's occurrences (src/notify/occurrences.ts) not settled
 * since (src/notify/open-occurrences.ts). Runs that ended recently: limits hit and a failed final
 * verify. Agent names and notes are agent-written: the page shows them as text.
 */
import type { EventKind, StoredEvent } from '../core/events.js';
import type { NotifyKind } from '../notify/kinds.js';
import {
  createOpenOccurrences,
  OPEN_OCCURRENCE_KINDS,
  type OpenOccurrences,
} from '../notify/open-occurrences.js';
import { interruptedRunIds, shownStatus } from '../run/interrupted.js';
import type { RunRecord, Store } from '../store/index.js';

export const RECENT_RUNS = 50;
export const FINISHED_WINDOW_MS = 24 * 3600_000;

export type NeedsYouKind = Exclude<NotifyKind, 'run_finished'> | 'verify_failed';

export interface NeedsYouItem {
  runId: string;
  runStatus: string;
  goal: string;
  kind: NeedsYouKind;
  /** The agent it is about (a name an agent may have chosen), or null for the run. */
  agent: string | null;
  /** The event that revealed it. */
  seq: number;
  at: string;
  /** Per kind, as in a notification (docs/notify.md); verify_failed: command and exit code. */
  details: Record<string, string | number | boolean | null>;
}

/** A finished run's log needs only these (its approvals, stalls and warnings are settled). */
const FINISHED_KINDS: EventKind[] = ['limit.hit', 'verify.finished', 'run.finished'];
const RUNNING_KINDS: EventKind[] = [...OPEN_OCCURRENCE_KINDS, 'verify.finished'];

interface RunFold {
  open: OpenOccurrences;
  lastSeq: number;
  /** Folded from every kind that matters while running (false: a finished run's few kinds). */
  whole: boolean;
  /** The last run-level verify. */
  verify: StoredEvent<'verify.finished'> | null;
}

/** The watch settings of a run from its stored spec (the runs row's config). */
function watchOf(run: RunRecord) {
  const c = run.config;
  return {
    ...(typeof c.budgetUsd === 'number' ? { budgetUsd: c.budgetUsd } : {}),
    ...(typeof c.budgetTokens === 'number' ? { budgetTokens: c.budgetTokens } : {}),
    approvals: c.approveMerges === true,
  };
}

/** The server's needs-you list, with each recent run's fold kept between requests. */
export class NeedsYou {
  private readonly folds = new Map<string, RunFold>();

  constructor(private readonly store: Store) {}

  async items(now = Date.now()): Promise<NeedsYouItem[]> {
    const runs = (await this.store.runs.listRuns(RECENT_RUNS)).filter(
      (r) =>
        r.status === 'running' ||
        (r.finishedAt !== null && now - Date.parse(r.finishedAt) <= FINISHED_WINDOW_MS),
    );
    // Runs no longer recent are forgotten.
    const ids = new Set(runs.map((r) => r.runId));
    for (const id of this.folds.keys()) if (!ids.has(id)) this.folds.delete(id);
    const interrupted = await interruptedRunIds(this.store, runs);
    const items: NeedsYouItem[] = [];
    for (const run of runs) {
      const running = run.status === 'running';
      const fold = await this.fold(run, running);
      const base = {
        runId: run.runId,
        runStatus: shownStatus(run.runId, run.status, interrupted),
        goal: run.goal,
      };
      for (const o of fold.open.open())
        items.push({
          ...base,
          kind: o.kind as NeedsYouKind,
          agent: o.agent,
          seq: o.seq,
          at: o.at,
          details: o.details,
        });
      const verify = fold.verify;
      if (!running && verify && !verify.data.passed)
        items.push({
          ...base,
          kind: 'verify_failed',
          agent: null,
          seq: verify.seq,
          at: verify.ts,
          details: { command: verify.data.command, exitCode: verify.data.exitCode },
        });
    }
    return items;
  }

  /** The run's fold brought up to date with its log (a resumed run is folded again, whole). */
  private async fold(run: RunRecord, running: boolean): Promise<RunFold> {
    let fold = this.folds.get(run.runId);
    if (!fold || (running && !fold.whole)) {
      fold = { open: createOpenOccurrences(watchOf(run)), lastSeq: 0, whole: running, verify: null };
      this.folds.set(run.runId, fold);
    }
    const events = await this.store.log.read(run.runId, {
      afterSeq: fold.lastSeq,
      kinds: fold.whole ? RUNNING_KINDS : FINISHED_KINDS,
      slim: true,
    });
    for (const event of events) {
      fold.open.apply(event);
      if (event.kind === 'verify.finished' && event.agent === null)
        fold.verify = event as StoredEvent<'verify.finished'>;
      fold.lastSeq = event.seq;
    }
    return fold;
  }
}
