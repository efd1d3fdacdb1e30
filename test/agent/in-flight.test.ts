import { describe, expect, it } from 'vitest';
import { decideInFlight } from '../../src/agent/in-flight.js';
import type { EventPayloads } from '../../src/core/events.js';
import { err, ok } from '../../src/lang/result.js';

const intent: EventPayloads['tool.intent'] = {
  step: 3,
  callId: 'c1',
  name: 'edit',
  path: 'src/a.js',
  beforeHash: 'b'.repeat(64),
  afterHash: 'a'.repeat(64),
  result: 'Edited src/a.js: replaced 1 occurrence at line 1',
};

describe('decideInFlight', () => {
  it('completes a call whose change is on disk from its logged result, without running it', () => {
    expect(decideInFlight(intent, ok(intent.afterHash))).toEqual({
      run: false,
      recovered: 'applied',
      result: { isError: false, content: intent.result },
    });
  });

  it('runs a call whose file is still as it was before', () => {
    expect(decideInFlight(intent, ok(intent.beforeHash))).toEqual({ run: true });
    // A file that did not exist and still does not: a write that never happened.
    expect(decideInFlight({ ...intent, name: 'write', beforeHash: null }, ok(null))).toEqual({ run: true });
  });

  it('does not run a call whose file changed while Colony was down, and says so', () => {
    for (const [now, why] of [
      [ok('c'.repeat(64)), 'it has other content'],
      [ok(null), 'it is gone'],
      [
        err('src/a.js is a FIFO (named pipe), not a regular file'),
        'src/a.js is a FIFO (named pipe), not a regular file',
      ],
    ] as const) {
      const decision = decideInFlight(intent, now);
      expect(decision).toMatchObject({ run: false, recovered: 'changed', result: { isError: true } });
      const content = decision.run ? '' : decision.result.content;
      expect(content).toBe(
        `the file changed while Colony was down: src/a.js is neither as it was before this edit nor as the edit would have left it (${why}), so the call was not run again. Read the file and make the change again if it is still needed.`,
      );
    }
  });

  it('prefers the after-state when a change left the file as it was (a write of the same content)', () => {
    const same = { ...intent, name: 'write', beforeHash: intent.afterHash };
    expect(decideInFlight(same, ok(intent.afterHash))).toMatchObject({ run: false, recovered: 'applied' });
  });
});
