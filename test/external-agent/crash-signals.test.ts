/**
 * What counts as a crash to restart (`isCrash`), and Claude Code's answer to `--resume` of a session
 * that was never written (started afresh instead).
 */
import { describe, expect, it } from 'vitest';
import { type CliProcessEnd, isCrash, readClaudeLine } from '../../src/external-agent/index.js';

const end = (over: Partial<CliProcessEnd>): CliProcessEnd => ({
  code: 0,
  signal: null,
  failure: null,
  result: null,
  sessionId: null,
  tail: '',
  ...over,
});
const result = { kind: 'result' as const, ok: true, text: 'done' };

describe('isCrash', () => {
  it('a death by signal, or a code of 128 and up, is a crash for any CLI', () => {
    expect(isCrash(end({ code: 128, signal: 'SIGKILL' }), {})).toBe(true);
    expect(isCrash(end({ code: 137 }), {})).toBe(true);
    expect(isCrash(end({ code: 128 }), { reportsResult: true })).toBe(true);
  });

  it('an exit without its result is a crash only for a CLI that reports one', () => {
    expect(isCrash(end({ code: 1 }), { reportsResult: true })).toBe(true);
    expect(isCrash(end({ code: 1 }), {})).toBe(false);
    expect(isCrash(end({ code: 0 }), {})).toBe(false);
  });

  it('not a crash: a result, a reported failure, a failed start', () => {
    expect(isCrash(end({ code: 1, result: { ...result, ok: false } }), { reportsResult: true })).toBe(false);
    expect(isCrash(end({ code: 137, result }), { reportsResult: true })).toBe(false);
    expect(isCrash(end({ code: 143, failure: 'MCP not up' }), { reportsResult: true })).toBe(false);
    expect(isCrash(end({ code: null, spawnError: 'ENOENT' }), { reportsResult: true })).toBe(false);
  });
});

describe('readClaudeLine', () => {
  it('marks a resumed session that does not exist (2.1.100 wording)', () => {
    const line = JSON.stringify({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      num_turns: 0,
      errors: ['No conversation found with session ID: 11111111-2222-3333-4444-555555555555'],
    });
    expect(readClaudeLine(line)).toEqual({
      kind: 'result',
      ok: false,
      text: 'error_during_execution: No conversation found with session ID: 11111111-2222-3333-4444-555555555555',
      turns: 0,
      sessionNotFound: true,
    });
    const success = JSON.stringify({ type: 'result', subtype: 'success', result: 'ok', num_turns: 2 });
    expect(readClaudeLine(success)).toEqual({ kind: 'result', ok: true, text: 'ok', turns: 2 });
  });
});
