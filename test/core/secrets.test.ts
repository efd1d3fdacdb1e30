import { describe, expect, it } from 'vitest';
import { base64Forms, createScrubber, secretValuesFromEnv } from '../../src/core/secrets.js';

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

  it('collects database URLs, *_PASS and *_DSN values, and the password inside any URL', () => {
    const values = secretValuesFromEnv({
      DATABASE_URL: 'postgres://app:hunter2hunter2@db:5432/x',
      PGPASS: 'not-matched-by-name',
      SMTP_PASS: 'mail-password-1',
      SENTRY_DSN: 'https://abc@o1.ingest.example/1',
      SOME_ENDPOINT: 'https://user:p%40ssw0rd!!@example.com/',
      PATH: '/usr/bin',
    });
    expect(values).toContain('postgres://app:hunter2hunter2@db:5432/x');
    expect(values).toContain('hunter2hunter2');
    expect(values).toContain('mail-password-1');
    expect(values).toContain('https://abc@o1.ingest.example/1');
    expect(values).toContain('p@ssw0rd!!');
    expect(values).not.toContain('/usr/bin');
  });

  it('scrubs a secret inside base64 at any byte offset, and any URL password', () => {
    const secret = 'sk-live-0123456789abcdef';
    const scrubber = createScrubber([secret]);
    for (const prefix of ['', 'K=', 'KEY=']) {
      const encoded = Buffer.from(`${prefix}${secret}\n`).toString('base64');
      expect(scrubber.scrub(`env: ${encoded}`)).toContain('[REDACTED]');
      // What is left cannot be decoded back to the key.
      expect(
        Buffer.from(scrubber.scrub(encoded).replace('[REDACTED]', ''), 'base64').toString(),
      ).not.toContain(secret.slice(0, 8));
    }
    expect(base64Forms(secret)).toHaveLength(3);
    expect(scrubber.scrub('see postgres://colony:s3cret-pw@127.0.0.1:5432/colony')).toBe(
      'see postgres://colony:[REDACTED]@127.0.0.1:5432/colony',
    );
    expect(createScrubber([]).scrubValue({ url: 'https://u:pw123456@h/' })).toEqual({
      url: 'https://u:[REDACTED]@h/',
    });
  });
});
