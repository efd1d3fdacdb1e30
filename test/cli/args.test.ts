/**
 * Flag parsing (issue 33): `--max-steps -3` was three lines of node's parseArgs text about an
 * "ambiguous" argument; a negative number is the flag's value, refused in one line by its check.
 */
import { describe, expect, it } from 'vitest';
import { numberFlag, parseFlags, UsageError } from '../../src/cli/args.js';

const OPTIONS = {
  'max-steps': { type: 'string' },
  goal: { type: 'string' },
  json: { type: 'boolean' },
} as const;

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error('expected a usage error');
}

describe('parseFlags', () => {
  it('takes a negative number as the value of the flag before it', () => {
    const { values, positionals } = parseFlags(['--max-steps', '-3', 'extra'], OPTIONS, 'run');
    expect(values['max-steps']).toBe('-3');
    expect(positionals).toEqual(['extra']);
    expect(parseFlags(['--max-steps', '-0.5'], OPTIONS, 'run').values['max-steps']).toBe('-0.5');
  });

  it('then refuses it in one line naming the flag', () => {
    const { values } = parseFlags(['--max-steps', '-3'], OPTIONS, 'run');
    const message = usageError(() => numberFlag(values['max-steps'], 'max-steps', 'int'));
    expect(message).toBe('--max-steps must be a positive integer, got "-3"');
  });

  it('says in one line how to give a value that starts with a dash', () => {
    const message = usageError(() => parseFlags(['--goal', '-x'], OPTIONS, 'run'));
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toBe(
      'run: --goal needs a value; one starting with a dash is written --goal=-x (see colony run --help)',
    );
  });

  it('leaves a negative number after a boolean flag alone (an unknown option, in one line)', () => {
    const message = usageError(() => parseFlags(['--json', '-3'], OPTIONS, 'run'));
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(/^run: Unknown option '-3'/);
  });
});
