/**
 * Per-agent bearer tokens: one agent in one run, until an expiry, signed with the run's secret
 * (run-secret.ts). An opaque string `colony_at_<payload>.<signature>`: the payload is base64url JSON
 * `{v, r: runId, a: agent, e: expiresAt (ms since the epoch), s?: scopes, n?: session epoch}`, the signature
 * HMAC-SHA256(secret, `colony_at_<payload>`) in base64url. The fixed prefix lets the secret
 * scrubber (core/secrets.ts) recognise a token anywhere in text.
 *
 * Revocation: tokens are not stored anywhere, so there is no list to strike one from. Replacing the
 * run's secret revokes all of the run's tokens at once; an agent that must keep working gets a new
 * token signed with the new secret.
 */
import { createHmac } from 'node:crypto';
import { err, ok, type Result } from '../lang/result.js';
import { isSafeAgentName, isSafeRunId } from './agent-name.js';
import { constantTimeEqual } from './constant-time.js';
import { RUN_SECRET_BYTES } from './run-secret.js';

export const AGENT_TOKEN_PREFIX = 'colony_at_';
/**
 * A token anywhere in text (for the scrubber): the prefix and the base64url characters and `.` after
 * it. Global: use it with `replace`/`matchAll`, not `test`.
 */
export const AGENT_TOKEN_PATTERN = /colony_at_[A-Za-z0-9_.-]+/g;

/** What a token may be used for; a token issued without scopes may be used for all of them. */
export const AGENT_TOKEN_SCOPES = ['git', 'mcp', 'model'] as const;
export type AgentTokenScope = (typeof AGENT_TOKEN_SCOPES)[number];

export interface AgentTokenClaims {
  runId: string;
  agent: string;
  /** Milliseconds since the epoch; the token is refused from this instant on. */
  expiresAt: number;
  scopes: readonly AgentTokenScope[];
  /**
   * The agent's session epoch on a fleet worker (src/fleet/): a server that knows the current epoch
   * refuses a token of an older one (fencing). Absent for tokens issued outside a fleet.
   */
  epoch?: number;
}

export interface IssueAgentToken {
  runId: string;
  agent: string;
  expiresAt: number;
  /** Default: every scope. */
  scopes?: readonly AgentTokenScope[];
  epoch?: number;
}

export type AgentTokenError = 'malformed' | 'bad_signature' | 'expired';

const VERSION = 1;
const SIGNATURE_BYTES = 32;
/** Far above any real token (~200 characters); refuses huge inputs before any work. */
const MAX_TOKEN_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function issueAgentToken(secret: Uint8Array, claims: IssueAgentToken): string {
  checkSecret(secret);
  if (!isSafeRunId(claims.runId)) throw new RangeError(`not a valid run id for a token: ${claims.runId}`);
  if (!isSafeAgentName(claims.agent))
    throw new RangeError(`not a valid agent name for a token: ${claims.agent}`);
  if (!Number.isSafeInteger(claims.expiresAt)) throw new RangeError('expiresAt must be an integer (ms)');
  const scopes = claims.scopes ? [...new Set(claims.scopes)] : undefined;
  if (scopes?.some((s) => !isScope(s))) throw new RangeError('unknown token scope');
  if (claims.epoch !== undefined && !(Number.isSafeInteger(claims.epoch) && claims.epoch > 0))
    throw new RangeError('epoch must be a positive integer');
  const payload = Buffer.from(
    JSON.stringify({
      v: VERSION,
      r: claims.runId,
      a: claims.agent,
      e: claims.expiresAt,
      s: scopes,
      n: claims.epoch,
    }),
  ).toString('base64url');
  const signed = `${AGENT_TOKEN_PREFIX}${payload}`;
  return `${signed}.${sign(secret, signed).toString('base64url')}`;
}

/**
 * Checks shape, then the signature (in constant time), then the claims and the expiry. Anything a
 * caller could send is an error result, never a throw.
 */
export function verifyAgentToken(
  secret: Uint8Array,
  token: string,
  now: number,
): Result<AgentTokenClaims, AgentTokenError> {
  checkSecret(secret);
  const parts = splitToken(token);
  if (!parts) return err('malformed');
  if (!constantTimeEqual(sign(secret, parts.signed), parts.signature)) return err('bad_signature');
  const claims = parseClaims(parts.payload);
  if (!claims) return err('malformed');
  if (!(now < claims.expiresAt)) return err('expired');
  return ok(claims);
}

/**
 * The run a token claims to be for, unverified: lets a server that serves several runs pick the
 * secret to verify it with. Never a basis for any decision by itself.
 */
export function unverifiedTokenRun(token: string): string | null {
  const parts = splitToken(token);
  return parts ? (parseClaims(parts.payload)?.runId ?? null) : null;
}

export function describeAgentTokenError(error: AgentTokenError): string {
  switch (error) {
    case 'malformed':
      return 'the token is not a Colony agent token';
    case 'bad_signature':
      return 'the token was not issued for this run (or the run revoked its tokens)';
    case 'expired':
      return 'the token has expired';
  }
}

function isScope(value: unknown): value is AgentTokenScope {
  return (AGENT_TOKEN_SCOPES as readonly unknown[]).includes(value);
}

function sign(secret: Uint8Array, signed: string): Buffer {
  return createHmac('sha256', secret).update(signed).digest();
}

function checkSecret(secret: Uint8Array): void {
  if (secret.length < RUN_SECRET_BYTES)
    throw new RangeError(`a run secret has at least ${RUN_SECRET_BYTES} bytes`);
}

function splitToken(token: string): { signed: string; payload: Buffer; signature: Buffer } | null {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !token.startsWith(AGENT_TOKEN_PREFIX))
    return null;
  const rest = token.slice(AGENT_TOKEN_PREFIX.length);
  const dot = rest.indexOf('.');
  if (dot < 0 || rest.indexOf('.', dot + 1) >= 0) return null;
  const payloadText = rest.slice(0, dot);
  const signatureText = rest.slice(dot + 1);
  if (!BASE64URL.test(payloadText) || !BASE64URL.test(signatureText)) return null;
  const signature = Buffer.from(signatureText, 'base64url');
  // Only the canonical encoding: otherwise the unused low bits of the last character would give
  // several spellings of one signature.
  if (signature.length !== SIGNATURE_BYTES || signature.toString('base64url') !== signatureText) return null;
  return {
    signed: `${AGENT_TOKEN_PREFIX}${payloadText}`,
    payload: Buffer.from(payloadText, 'base64url'),
    signature,
  };
}

function parseClaims(payload: Buffer): AgentTokenClaims | null {
  let data: unknown;
  try {
    data = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null) return null;
  const { v, r, a, e, s, n } = data as Record<string, unknown>;
  if (v !== VERSION || typeof r !== 'string' || typeof a !== 'string' || typeof e !== 'number') return null;
  if (!isSafeRunId(r) || !isSafeAgentName(a) || !Number.isSafeInteger(e)) return null;
  let scopes: readonly AgentTokenScope[] = AGENT_TOKEN_SCOPES;
  if (s !== undefined) {
    if (!Array.isArray(s) || !s.every(isScope)) return null;
    scopes = s;
  }
  if (n === undefined) return { runId: r, agent: a, expiresAt: e, scopes };
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) return null;
  return { runId: r, agent: a, expiresAt: e, scopes, epoch: n };
}
