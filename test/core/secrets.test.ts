import { describe, expect, it } from 'vitest';
import { createScrubber, secretValuesFromEnv } from '../../src/core/secrets.js';

describe('secrets', () => {
  it('collects secret-looking environment values only', () => {
    const values = secretValuesFromEnv({
      OPENAI_API_KEY: 'sk-abcdefghijkl',
      HOME: '/root',
      GITHUB_TOKEN: 'ghp_0123456789',
    });
    expect(values.sort()).toEqual(['ghp_0123456789', 'sk-abcdefghijkl']);
  });

  it('scrubs every occurrence, nested values included, longest secret first', () => {
    const scrubber = createScrubber(['sk-abcdefghijkl', 'sk-abcdefghijkl-extended', 'short']);
    expect(scrubber.scrub('a sk-abcdefghijkl-extended b sk-abcdefghijkl c')).toBe(
      'a [REDACTED] b [REDACTED] c',
    );
    expect(scrubber.scrubValue({ list: ['x sk-abcdefghijkl'], n: 3, short: 'short' })).toEqual({
      list: ['x [REDACTED]'],
      n: 3,
      short: 'short',
    });
  });

  it('escapes regular-expression characters in secrets', () => {
    const scrubber = createScrubber(['a+b*c(d)e[f]']);
    expect(scrubber.scrub('x a+b*c(d)e[f] y')).toBe('x [REDACTED] y');
  });
});
