/**
 * Who is asking: the agent token of a hub request, as `Authorization: Bearer <token>` or as HTTP
 * basic auth with the token as the password (what git sends from a credential or a URL's
 * `user:token@`; the user name is ignored, a token in its place is accepted too).
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  AGENT_TOKEN_PREFIX,
  type AgentTokenClaims,
  describeAgentTokenError,
  verifyAgentToken,
} from '../../auth/index.js';
import { err, ok, type Result } from '../../lang/result.js';

export function presentedAgentToken(headers: IncomingHttpHeaders): string | null {
  const auth = headers.authorization?.trim();
  if (!auth) return null;
  const space = auth.indexOf(' ');
  if (space < 0) return null;
  const scheme = auth.slice(0, space).toLowerCase();
  const value = auth.slice(space + 1).trim();
  if (scheme === 'bearer') return value;
  if (scheme !== 'basic') return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  if (password.startsWith(AGENT_TOKEN_PREFIX)) return password;
  if (user.startsWith(AGENT_TOKEN_PREFIX)) return user;
  return password || null;
}

export interface HubRunAccess {
  runId: string;
  /** The run's token secret (auth/run-secret.ts). */
  secret: Uint8Array;
}

/** The token's claims when it is valid, for this run and allows git; else why not (for a 401). */
export function authenticateHubRequest(
  headers: IncomingHttpHeaders,
  run: HubRunAccess | undefined,
  now: number,
): Result<AgentTokenClaims, string> {
  const token = presentedAgentToken(headers);
  if (token === null)
    return err('this hub needs an agent token: Authorization: Bearer <token>, or the token as the password');
  // An unknown run answers like a bad token: an unauthenticated caller learns nothing about runs.
  if (!run) return err(describeAgentTokenError('bad_signature'));
  const verified = verifyAgentToken(run.secret, token, now);
  if (!verified.ok) return err(describeAgentTokenError(verified.error));
  if (verified.value.runId !== run.runId) return err('the token is for another run');
  if (!verified.value.scopes.includes('git')) return err('the token does not allow git access');
  return ok(verified.value);
}
