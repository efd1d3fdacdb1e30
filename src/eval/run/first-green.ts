/**
 * Time to first green verify, from a run's stored events: the first time the task's verify command
 * passed on the team's shared result during the run, measured from `run.started`. What counts:
 * - `verify.finished` passed with the verify command: the final check, the peers' goal check on hub
 *   main, orchestrated acceptance (its verify command is logged by the `acceptance` agent);
 * - `sync.finished` passed with the verify command (a workflow sync point);
 * - `merge.landed` when the merge check is the verify command (peers, orchestrated and workflow runs
 *   without --merge-verify): a landing means the merged main passed it.
 * Not counted: an agent running the tests with its bash tool in its own worktree — that is its
 * private tree, not the result, and a bash call does not say which command passed.
 */

/** The fields of a stored event this reads (a `colony run --json` line). */
export interface GreenEvent {
  kind: string;
  ts: string;
  data?: unknown;
}

export interface GreenWatch {
  /** Epoch ms of `run.started`, when seen. */
  startMs: number | null;
  /** Epoch ms of the first green, when seen. */
  greenMs: number | null;
}

export interface GreenRules {
  verify: string;
  /** Whether each merge is checked with the verify command (so a landing is a green verify). */
  mergesVerified: boolean;
}

function passedWith(data: unknown, verify: string): boolean {
  const d = data as { passed?: unknown; command?: unknown } | undefined;
  return d?.passed === true && d.command === verify;
}

/** The watch after one more event (pure: the caller keeps the state). */
export function noteGreen(watch: GreenWatch, event: GreenEvent, rules: GreenRules): GreenWatch {
  const at = Date.parse(event.ts);
  if (!Number.isFinite(at)) return watch;
  if (event.kind === 'run.started') return watch.startMs === null ? { ...watch, startMs: at } : watch;
  if (watch.greenMs !== null && watch.greenMs <= at) return watch;
  const green =
    ((event.kind === 'verify.finished' || event.kind === 'sync.finished') &&
      passedWith(event.data, rules.verify)) ||
    (event.kind === 'merge.landed' && rules.mergesVerified);
  return green ? { ...watch, greenMs: at } : watch;
}

/** Milliseconds from the run's start to its first green verify; null when it never went green. */
export function firstGreenMsOf(watch: GreenWatch): number | null {
  if (watch.startMs === null || watch.greenMs === null) return null;
  return Math.max(0, watch.greenMs - watch.startMs);
}

export const NO_GREEN: GreenWatch = { startMs: null, greenMs: null };
