import { describe, expect, it } from 'vitest';
import { createRunSecret, issueAgentToken } from '../../src/auth/index.js';
import { createScrubber } from '../../src/core/secrets.js';

describe('the scrubber and agent tokens', () => {
  const token = issueAgentToken(createRunSecret(), { runId: 'r-1', agent: 'peer-1', expiresAt: Date.now() });

  it('redacts a token it was never told about, wherever it appears', () => {
    const scrub = createScrubber([]);
    expect(scrub.scrub(`Authorization: Bearer ${token}`)).toBe('Authorization: Bearer [REDACTED]');
    expect(scrub.scrub(`git clone http://x:${token}@127.0.0.1:9/r-1/hub.git`)).toBe(
      'git clone http://x:[REDACTED]@127.0.0.1:9/r-1/hub.git',
    );
    expect(scrub.scrubValue({ env: [`COLONY_TOKEN=${token}`] })).toEqual({
      env: ['COLONY_TOKEN=[REDACTED]'],
    });
    expect(scrub.scrub(`"${token}",`)).toBe('"[REDACTED]",');
  });

  it('redacts a base64-encoded token at any byte offset', () => {
    const scrub = createScrubber([]);
    for (const before of ['', 'x', 'xy']) {
      const encoded = Buffer.from(`${before}${token}\n`).toString('base64');
      const out = scrub.scrub(`echo ${encoded} | base64 -d`);
      expect(out).toContain('[REDACTED]');
      expect(out).not.toContain(encoded.slice(12, 40));
    }
  });

  it('leaves ordinary text alone', () => {
    const scrub = createScrubber([]);
    expect(scrub.scrub('the colony at dawn, colony_atlas')).toBe('the colony at dawn, colony_atlas');
  });
});
