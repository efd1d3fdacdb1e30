/**
 * `GET /api/needs-you`: what waits for a person across runs, newest run first. Only recent runs are
 * looked at (the newest `RECENT_RUNS`, and of the finished ones those that ended in the last
 * `FINISHED_WINDOW_MS`), so the list stays cheap however long the history is. Running (and
 * interrupted) runs: merges awaiting approval, stalled agents, budgets past 80 %, limits hit — the
 * notifier's occurrences (src/notify/occurrences.ts) not settled since (open-occurrences.ts). Runs
 * that ended recently: limits hit and a failed final verify. Agent names and notes are agent-written:
 * the page shows them as text.
 */
import type { EventKind, StoredEvent } from '../core/events.js';
import type { NotifyKind } from '../notify/kinds.js';
import { OPEN_OCCURRENCE_KINDS, openOccurrences } from '../notify/open-occurrences.js';
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

/** The watch settings of a run from its stored spec (the runs row's config). */
function watchOf(run: RunRecord) {
  const c = run.config;
  return {
    ...(typeof c.budgetUsd === 'number' ? { budgetUsd: c.budgetUsd } : {}),
    ...(typeof c.budgetTokens === 'number' ? { budgetTokens: c.budgetTokens } : {}),
    approvals: c.approveMerges === true,
  };
}

const FINISHED_KINDS: EventKind[] = ['limit.hit', 'verify.finished', 'run.finished'];

/** The run's final verify when it failed (the last run-level verify.finished). */
function failedVerify(run: RunRecord, status: string, events: readonly StoredEvent[]): NeedsYouItem | null {
  const last = events.filter((e) => e.kind === 'verify.finished' && e.agent === null).at(-1) as
    | StoredEvent<'verify.finished'>
    | undefined;
  if (!last || last.data.passed) return null;
  return {
    runId: run.runId,
    runStatus: status,
    goal: run.goal,
    kind: 'verify_failed',
    agent: null,
    seq: last.seq,
    at: last.ts,
    details: { command: last.data.command, exitCode: last.data.exitCode },
  };
}

export async function needsYou(store: Store, now = Date.now()): Promise<NeedsYouItem[]> {
  const runs = (await store.runs.listRuns(RECENT_RUNS)).filter(
    (r) =>
      r.status === 'running' ||
      (r.finishedAt !== null && now - Date.parse(r.finishedAt) <= FINISHED_WINDOW_MS),
  );
  const interrupted = await interruptedRunIds(store, runs);
  const items: NeedsYouItem[] = [];
  for (const run of runs) {
    const running = run.status === 'running';
    const status = shownStatus(run.runId, run.status, interrupted);
    const events = await store.log.read(run.runId, {
      kinds: running ? OPEN_OCCURRENCE_KINDS : FINISHED_KINDS,
      slim: true,
    });
    const found: NeedsYouItem[] = openOccurrences(events, watchOf(run))
      .filter((o) => o.kind !== 'run_finished')
      .map((o) => ({
        runId: run.runId,
        runStatus: status,
        goal: run.goal,
        kind: o.kind as NeedsYouKind,
        agent: o.agent,
        seq: o.seq,
        at: o.at,
        details: o.details,
      }));
    const verify = running ? null : failedVerify(run, status, events);
    items.push(...found, ...(verify ? [verify] : []));
  }
  return items;
}
