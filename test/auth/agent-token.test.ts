import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AGENT_TOKEN_PREFIX,
  constantTimeEqual,
  createRunSecret,
  describeAgentTokenError,
  issueAgentToken,
  unverifiedTokenRun,
  verifyAgentToken,
} from '../../src/auth/index.js';

const NOW = Date.UTC(2026, 11, 3, 12, 0, 0);
const HOUR = 3_600_000;

function tokenFor(secret: Buffer, agent = 'peer-1', runId = 'r-abc-123456', expiresAt = NOW + HOUR) {
  return issueAgentToken(secret, { runId, agent, expiresAt });
}

describe('agent tokens', () => {
  it('round-trips the claims, with every scope when none were given', () => {
    const secret = createRunSecret();
    const token = tokenFor(secret);
    expect(token.startsWith(AGENT_TOKEN_PREFIX)).toBe(true);
    expect(verifyAgentToken(secret, token, NOW)).toEqual({
      ok: true,
      value: {
        runId: 'r-abc-123456',
        agent: 'peer-1',
        expiresAt: NOW + HOUR,
        scopes: ['git', 'mcp', 'model'],
      },
    });
    const scoped = issueAgentToken(secret, { runId: 'r-1', agent: 'a', expiresAt: NOW + 1, scopes: ['git'] });
    const verified = verifyAgentToken(secret, scoped, NOW);
    expect(verified.ok && verified.value.scopes).toEqual(['git']);
  });

  it('is opaque: the secret does not appear in it, two secrets give two signatures', () => {
    const a = createRunSecret();
    const b = createRunSecret();
    expect(tokenFor(a)).not.toContain(a.toString('base64url'));
    expect(tokenFor(a)).not.toBe(tokenFor(b));
  });

  it('fails when any single character is changed, dropped or added', () => {
    const secret = createRunSecret();
    const token = tokenFor(secret);
    const alphabet = 'AbZz09_-.';
    for (let i = 0; i < token.length; i++) {
      const original = token[i] ?? '';
      for (const c of alphabet) {
        if (c === original) continue;
        const tampered = token.slice(0, i) + c + token.slice(i + 1);
        const result = verifyAgentToken(secret, tampered, NOW);
        expect(result.ok, `changed position ${i} to ${c}`).toBe(false);
      }
      expect(verifyAgentToken(secret, token.slice(0, i) + token.slice(i + 1), NOW).ok).toBe(false);
    }
    expect(verifyAgentToken(secret, `${token}A`, NOW).ok).toBe(false);
    expect(verifyAgentToken(secret, token, NOW).ok).toBe(true);
  });

  it('refuses a payload re-signed by someone without the secret (claims swapped)', () => {
    const secret = createRunSecret();
    const mine = tokenFor(secret, 'peer-1');
    const theirs = tokenFor(secret, 'peer-2');
    const [myPayload] = mine.split('.');
    const [, theirSignature] = theirs.split('.');
    expect(verifyAgentToken(secret, `${myPayload}.${theirSignature}`, NOW)).toEqual({
      ok: false,
      error: 'bad_signature',
    });
    // A payload naming another agent, with the original signature.
    const forged = Buffer.from(
      JSON.stringify({ v: 1, r: 'r-abc-123456', a: 'peer-2', e: NOW + HOUR }),
    ).toString('base64url');
    expect(verifyAgentToken(secret, `${AGENT_TOKEN_PREFIX}${forged}.${mine.split('.')[1]}`, NOW)).toEqual({
      ok: false,
      error: 'bad_signature',
    });
  });

  it('expires at expiresAt exactly', () => {
    const secret = createRunSecret();
    const token = tokenFor(secret, 'peer-1', 'r-1', NOW);
    expect(verifyAgentToken(secret, token, NOW - 1).ok).toBe(true);
    expect(verifyAgentToken(secret, token, NOW)).toEqual({ ok: false, error: 'expired' });
    expect(verifyAgentToken(secret, token, NOW + HOUR)).toEqual({ ok: false, error: 'expired' });
  });

  it('a new secret revokes every token of the run', () => {
    const old = createRunSecret();
    const token = tokenFor(old);
    expect(verifyAgentToken(createRunSecret(), token, NOW)).toEqual({ ok: false, error: 'bad_signature' });
  });

  it('calls malformed input malformed, never throws on it', () => {
    const secret = createRunSecret();
    const sig = tokenFor(secret).split('.')[1] ?? '';
    const inputs = [
      '',
      'Bearer x',
      AGENT_TOKEN_PREFIX,
      `${AGENT_TOKEN_PREFIX}abc`,
      `${AGENT_TOKEN_PREFIX}abc.`,
      `${AGENT_TOKEN_PREFIX}.${sig}`,
      `${AGENT_TOKEN_PREFIX}a.b.c`,
      `${AGENT_TOKEN_PREFIX}ab+c.${sig}`,
      `${AGENT_TOKEN_PREFIX}abc.${sig.slice(0, -2)}`,
      `${AGENT_TOKEN_PREFIX}abc.${sig}AAAA`,
      `${AGENT_TOKEN_PREFIX}${'A'.repeat(5000)}.${sig}`,
      `colony_xx_abc.${sig}`,
    ];
    for (const input of inputs)
      expect(verifyAgentToken(secret, input, NOW), input).toEqual({ ok: false, error: 'malformed' });
    expect(verifyAgentToken(secret, 42 as unknown as string, NOW)).toEqual({ ok: false, error: 'malformed' });
  });

  it('a correctly signed payload with bad claims is malformed (not trusted)', () => {
    const secret = createRunSecret();
    const signedBy = (payload: unknown) => {
      const text = `${AGENT_TOKEN_PREFIX}${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
      return `${text}.${createHmac('sha256', secret).update(text).digest('base64url')}`;
    };
    expect(verifyAgentToken(secret, signedBy({ v: 1, r: 'r-1', a: 'x', e: NOW + 1 }), NOW).ok).toBe(true);
    for (const payload of [
      { v: 2, r: 'r-1', a: 'x', e: NOW + 1 },
      { v: 1, r: 'r-1', a: '../x', e: NOW + 1 },
      { v: 1, r: 'r-1', a: 'a/b', e: NOW + 1 },
      { v: 1, r: 'r/1', a: 'x', e: NOW + 1 },
      { v: 1, r: 'r-1', a: 'x', e: 'tomorrow' },
      { v: 1, r: 'r-1', a: 'x', e: NOW + 1, s: ['root'] },
      [1, 2],
    ])
      expect(verifyAgentToken(secret, signedBy(payload), NOW), JSON.stringify(payload)).toEqual({
        ok: false,
        error: 'malformed',
      });
  });

  it('refuses to issue for unsafe names, short secrets and unknown scopes', () => {
    const secret = createRunSecret();
    expect(() => issueAgentToken(secret, { runId: 'r-1', agent: 'a/b', expiresAt: NOW })).toThrow(RangeError);
    expect(() => issueAgentToken(secret, { runId: 'r 1', agent: 'a', expiresAt: NOW })).toThrow(RangeError);
    expect(() => issueAgentToken(Buffer.alloc(16), { runId: 'r-1', agent: 'a', expiresAt: NOW })).toThrow(
      RangeError,
    );
    expect(() =>
      issueAgentToken(secret, { runId: 'r-1', agent: 'a', expiresAt: NOW, scopes: ['root' as 'git'] }),
    ).toThrow(RangeError);
  });

  it('names the run before verification, for picking the secret', () => {
    const token = tokenFor(createRunSecret(), 'peer-1', 'r-xyz-000001');
    expect(unverifiedTokenRun(token)).toBe('r-xyz-000001');
    expect(unverifiedTokenRun('nonsense')).toBeNull();
  });

  it('has a message for each reason', () => {
    for (const reason of ['malformed', 'bad_signature', 'expired'] as const)
      expect(describeAgentTokenError(reason)).toMatch(/token/);
  });
});

describe('constant-time comparison', () => {
  // No timing is measured (it would be flaky): this checks the comparison's contract — whole-buffer
  // comparison through timingSafeEqual, false (not a throw) on unequal lengths — and that every bad
  // signature, wherever it differs, takes the same path to the same answer.
  it('compares whole buffers and answers false on unequal lengths', () => {
    const a = Buffer.alloc(32, 7);
    expect(constantTimeEqual(a, Buffer.alloc(32, 7))).toBe(true);
    for (const i of [0, 15, 31]) {
      const b = Buffer.from(a);
      b[i] = 8;
      expect(constantTimeEqual(a, b)).toBe(false);
    }
    expect(constantTimeEqual(a, a.subarray(0, 31))).toBe(false);
    expect(constantTimeEqual(Buffer.alloc(0), Buffer.alloc(0))).toBe(true);
  });

  it('a signature wrong in its first or its last byte is refused the same way', () => {
    const secret = createRunSecret();
    const token = tokenFor(secret);
    const [signed, sigText] = token.split('.') as [string, string];
    const sig = Buffer.from(sigText, 'base64url');
    for (const i of [0, 31]) {
      const bad = Buffer.from(sig);
      bad[i] = (bad[i] ?? 0) ^ 1;
      expect(verifyAgentToken(secret, `${signed}.${bad.toString('base64url')}`, NOW)).toEqual({
        ok: false,
        error: 'bad_signature',
      });
    }
  });
});
