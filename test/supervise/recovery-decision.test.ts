/** Which orphaned runs a supervisor resumes on its own (src/supervise/recovery-decision.ts). */
import { describe, expect, it } from 'vitest';
import { type RunningRunFacts, recoveryDecision } from '../../src/supervise/recovery-decision.js';

const orphan: RunningRunFacts = {
  interrupted: true,
  stopRequested: false,
  autoResume: true,
  silentMs: 60_000,
  repoHere: true,
};
const policy = { graceMs: 5_000, windowMs: 3_600_000 };

describe('recoveryDecision', () => {
  it('resumes a run whose process is gone and whose log has been silent for the grace period', () => {
    expect(recoveryDecision('r1', orphan, policy)).toEqual({ action: 'resume', afterMs: 60_000 });
  });

  it('leaves a live run, and waits out the grace period of a just-silent one', () => {
    expect(recoveryDecision('r1', { ...orphan, interrupted: false }, policy)).toEqual({ action: 'live' });
    expect(recoveryDecision('r1', { ...orphan, silentMs: 1_500 }, policy)).toEqual({
      action: 'wait',
      inMs: 3_500,
    });
  });

  it('never resumes a run someone asked to stop, one that opted out, one too old or from elsewhere', () => {
    const reasons = [
      { ...orphan, stopRequested: true },
      { ...orphan, autoResume: false },
      { ...orphan, silentMs: 2 * 3_600_000 },
      { ...orphan, repoHere: false },
      { ...orphan, silentMs: null },
    ].map((facts) => {
      const decision = recoveryDecision('r1', facts, policy);
      return decision.action === 'skip' ? decision.reason : decision.action;
    });
    expect(reasons).toEqual([
      'a stop was asked for: colony stop r1 finishes it as stopped',
      'started with --no-auto-resume: colony resume r1 finishes it',
      'its process has been gone for over 1 h: colony resume r1 finishes it',
      'its repository is not on this machine',
      'it has no events',
    ]);
  });
});
