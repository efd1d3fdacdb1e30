/**
 * The one status decision of every topology (src/topology/session/run-verdict.ts): its precedence
 * (goal met, budget, early end, stop, nothing finished, landing, verify, partial) and its reasons.
 */
import { describe, expect, it } from 'vitest';
import { type DecidingEnd, decideRunStatus, decidingEnd } from '../../../src/topology/session/run-verdict.js';

const done = (who: string): DecidingEnd => ({ who, end: 'done', reason: 'final answer' });
const failed = (who: string, reason = 'HTTP 500 from the provider'): DecidingEnd => ({
  who,
  end: 'failed',
  reason,
});
const passed = { command: 'npm test', passed: true };
const broken = { command: 'npm test', passed: false };

describe('decideRunStatus', () => {
  it('fails a team where every member failed, even when verify passes on an untouched main', () => {
    const verdict = decideRunStatus({
      ends: [failed('peer-1'), failed('peer-2')],
      endCause: null,
      verify: passed,
    });
    expect(verdict.status).toBe('failed');
    expect(verdict.reason).toBe(
      'every one of the 2 failed, no work landed (peer-1: HTTP 500 from the provider)',
    );
  });

  it('names the one deciding agent that failed or never finished', () => {
    expect(decideRunStatus({ ends: [failed('the lead', 'bad key')], endCause: null, verify: null })).toEqual({
      status: 'failed',
      reason: 'the lead failed: bad key',
    });
    const missing = decidingEnd({ agent: 'peer-1', started: false, error: 'no checkout' });
    expect(
      decideRunStatus({ ends: [missing, { ...missing, who: 'peer-2' }], endCause: null, verify: null }),
    ).toEqual({
      status: 'failed',
      reason: 'none of the 2 could start: no checkout',
    });
  });

  it('lets a met goal win unless verify failed, and a budget win over an early end', () => {
    const goal = { status: 'succeeded' as const, reason: 'goal met: verify passed on main' };
    expect(decideRunStatus({ ends: [failed('peer-1')], endCause: goal, verify: passed })).toEqual(goal);
    expect(decideRunStatus({ ends: [done('peer-1')], endCause: goal, verify: broken }).status).toBe('failed');
    const budget: DecidingEnd = { who: 'peer-2', end: 'budget', reason: 'budget of $1 exceeded' };
    const deadline = { status: 'deadline_exceeded' as const, reason: 'deadline passed' };
    expect(decideRunStatus({ ends: [done('peer-1'), budget], endCause: deadline, verify: null })).toEqual({
      status: 'budget_exhausted',
      reason: 'budget of $1 exceeded',
    });
    expect(decideRunStatus({ ends: [done('peer-1')], endCause: deadline, verify: null })).toEqual(deadline);
    const stop: DecidingEnd = { who: 'the agent', end: 'aborted', reason: 'stopped by request' };
    expect(decideRunStatus({ ends: [stop], endCause: null, verify: null }).status).toBe('stopped');
  });

  it('fails on work that did not land and on a failed verify, before counting finishers', () => {
    const ends = [done('the agent')];
    expect(
      decideRunStatus({ ends, endCause: null, verify: null, landing: { landed: false, reason: 'conflict' } }),
    ).toEqual({ status: 'failed', reason: "the agent's work did not land: conflict" });
    expect(decideRunStatus({ ends, endCause: null, verify: broken })).toEqual({
      status: 'failed',
      reason: 'verify command failed on main: npm test',
    });
  });

  it('takes a partial team on verify alone, and says how many finished', () => {
    const ends = [done('peer-1'), failed('peer-2')];
    expect(decideRunStatus({ ends, endCause: null, verify: passed })).toEqual({
      status: 'succeeded',
      reason: '1 of 2 finished and verify passed on main',
    });
    expect(decideRunStatus({ ends, endCause: null, verify: null })).toEqual({
      status: 'failed',
      reason: '1 of 2 did not finish (peer-2: HTTP 500 from the provider)',
    });
    expect(decideRunStatus({ ends: [done('peer-1'), done('peer-2')], endCause: null, verify: null })).toEqual(
      {
        status: 'succeeded',
        reason: 'all 2 finished',
      },
    );
    expect(decideRunStatus({ ends: [done('the lead')], endCause: null, verify: null })).toEqual({
      status: 'succeeded',
      reason: 'the lead finished',
    });
  });

  it("says why a lone agent never started (a worker's refusal), and only 'did not finish' when it just stopped", () => {
    const missing = (reason: string) => [{ agent: 'peer-1', started: false as const, error: reason }];
    expect(
      decideRunStatus({
        ends: missing('a worker refused: plain HTTP').map(decidingEnd),
        endCause: null,
        verify: null,
      }),
    ).toEqual({ status: 'failed', reason: 'peer-1 did not finish: a worker refused: plain HTTP' });
    expect(
      decideRunStatus({ ends: missing('did not finish').map(decidingEnd), endCause: null, verify: null }),
    ).toEqual({ status: 'failed', reason: 'peer-1 did not finish' });
  });

  it('fails a succeeded run on its acceptance check', () => {
    const ends = [done('the lead')];
    const acceptance = (result: { round: number; passed: boolean } | null) => ({
      command: 'make e2e',
      result,
    });
    expect(decideRunStatus({ ends, endCause: null, verify: null, acceptance: acceptance(null) }).reason).toBe(
      'the acceptance check did not run',
    );
    expect(
      decideRunStatus({
        ends,
        endCause: null,
        verify: null,
        acceptance: acceptance({ round: 2, passed: false }),
      }),
    ).toEqual({ status: 'failed', reason: 'acceptance check failed on main after 2 fix round(s): make e2e' });
    expect(
      decideRunStatus({
        ends,
        endCause: null,
        verify: passed,
        acceptance: acceptance({ round: 1, passed: true }),
      }).reason,
    ).toBe('the lead finished and verify passed on main; acceptance passed after 1 fix round(s)');
  });
});
