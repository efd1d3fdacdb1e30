/**
 * Who is calling the proxy: the agent token an external CLI sends as its API key — `x-api-key`
 * (Anthropic clients, Claude Code with ANTHROPIC_API_KEY) or `Authorization: Bearer` (OpenAI clients,
 * Claude Code with ANTHROPIC_AUTH_TOKEN). Verified on every request: this run's secret, unexpired,
 * the `model` scope.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  type AgentTokenClaims,
  describeAgentTokenError,
  unverifiedTokenRun,
  verifyAgentToken,
} from '../auth/index.js';
import { err, ok, type Result } from '../lang/result.js';

export function presentedModelToken(headers: IncomingHttpHeaders): string | null {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  const auth = headers.authorization?.trim();
  if (!auth) return null;
  const space = auth.indexOf(' ');
  if (space < 0 || auth.slice(0, space).toLowerCase() !== 'bearer') return null;
  const value = auth.slice(space + 1).trim();
  return value === '' ? null : value;
}

/**
 * The token's claims when it is valid for the run it names (whose secret `secretOf` gives) and
 * allows model calls; else why not (answered 401). An unknown run answers like a bad signature, so an
 * unauthenticated caller learns nothing about which runs exist.
 */
export function authenticateModelRequest(
  headers: IncomingHttpHeaders,
  secretOf: (runId: string) => Uint8Array | undefined,
  now: number,
): Result<AgentTokenClaims, string> {
  const token = presentedModelToken(headers);
  if (token === null)
    return err('this proxy needs an agent token as the API key (x-api-key or Authorization: Bearer)');
  const runId = unverifiedTokenRun(token);
  const secret = runId === null ? undefined : secretOf(runId);
  if (runId === null) return err(describeAgentTokenError('malformed'));
  if (secret === undefined) return err(describeAgentTokenError('bad_signature'));
  const verified = verifyAgentToken(secret, token, now);
  if (!verified.ok) return err(describeAgentTokenError(verified.error));
  if (verified.value.runId !== runId) return err('the token is for another run');
  if (!verified.value.scopes.includes('model')) return err('the token does not allow model calls');
  return ok(verified.value);
}
