/**
 * Whether a supervisor resumes a running run on its own: only one whose process is gone (its run lock
 * free: run/interrupted.ts), that nobody asked to stop, that did not opt out (`--no-auto-resume`),
 * whose log has been silent for the grace period (a run being recorded has not taken its lock yet)
 * and not for longer than the recovery window (a run left for days is the person's to resume), and
 * whose repository is on this machine.
 */
export interface RunningRunFacts {
  /** Its run lock is free and no process of it is alive on this machine. */
  interrupted: boolean;
  stopRequested: boolean;
  /** false: started with --no-auto-resume (RunSpec.autoResume). */
  autoResume: boolean;
  /** Milliseconds since its last event (null: it has none). */
  silentMs: number | null;
  /** The run's repository exists on this machine (a supervisor elsewhere cannot finish it). */
  repoHere: boolean;
}

export interface RecoveryPolicy {
  /** Silence before a run counts as orphaned (default 5 s). */
  graceMs: number;
  /** A run silent for longer is left for `colony resume` (default 24 h). */
  windowMs: number;
}

export const DEFAULT_RECOVERY_POLICY: RecoveryPolicy = { graceMs: 5_000, windowMs: 24 * 3_600_000 };

export type RecoveryDecision =
  | { action: 'live' }
  | { action: 'wait'; inMs: number }
  | { action: 'resume'; afterMs: number }
  | { action: 'skip'; reason: string };

export function recoveryDecision(
  runId: string,
  run: RunningRunFacts,
  policy: RecoveryPolicy = DEFAULT_RECOVERY_POLICY,
): RecoveryDecision {
  if (!run.interrupted) return { action: 'live' };
  if (run.stopRequested)
    return { action: 'skip', reason: `a stop was asked for: colony stop ${runId} finishes it as stopped` };
  if (!run.autoResume)
    return { action: 'skip', reason: `started with --no-auto-resume: colony resume ${runId} finishes it` };
  if (!run.repoHere) return { action: 'skip', reason: 'its repository is not on this machine' };
  if (run.silentMs === null) return { action: 'skip', reason: 'it has no events' };
  if (run.silentMs < policy.graceMs) return { action: 'wait', inMs: policy.graceMs - run.silentMs };
  if (run.silentMs > policy.windowMs)
    return {
      action: 'skip',
      reason: `its process has been gone for over ${Math.round(policy.windowMs / 3_600_000)} h: colony resume ${runId} finishes it`,
    };
  return { action: 'resume', afterMs: run.silentMs };
}
