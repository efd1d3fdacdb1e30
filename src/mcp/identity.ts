/**
 * Who is calling the MCP server: the agent named by a per-agent token (auth/agent-token.ts), verified
 * with its run's secret, never by an MCP session id. The token's agent is the only agent the caller
 * can act as (its tools are built for that agent) and its run the only run. Refusals are data: 401
 * when there is no valid token for a run this server knows, 403 when the token is valid but may not
 * be used here (no `mcp` scope, or the host's own check says no).
 */
import {
  AGENT_TOKEN_PREFIX,
  type AgentTokenClaims,
  describeAgentTokenError,
  unverifiedTokenRun,
  verifyAgentToken,
} from '../auth/index.js';
import { err, ok, type Result } from '../lang/result.js';

export interface McpRunAccess {
  runId: string;
  /** The run's token secret (auth/run-secret.ts). */
  secret: Uint8Array;
}

export interface McpRefusal {
  status: 401 | 403;
  message: string;
}

export const MISSING_TOKEN = `this MCP server needs an agent token: Authorization: Bearer ${AGENT_TOKEN_PREFIX}…`;

/** Verifies `token` for `run` (undefined: a run this server does not serve) at `now`. */
export function checkMcpToken(
  token: string | null,
  run: McpRunAccess | undefined,
  now: number,
): Result<AgentTokenClaims, McpRefusal> {
  if (token === null || token === '') return err({ status: 401, message: MISSING_TOKEN });
  if (unverifiedTokenRun(token) === null)
    return err({ status: 401, message: describeAgentTokenError('malformed') });
  // An unknown run answers like a bad token: an unauthenticated caller learns nothing about runs.
  if (!run) return err({ status: 401, message: describeAgentTokenError('bad_signature') });
  const verified = verifyAgentToken(run.secret, token, now);
  if (!verified.ok) return err({ status: 401, message: describeAgentTokenError(verified.error) });
  if (verified.value.runId !== run.runId)
    return err({ status: 401, message: 'the token is for another run' });
  if (!verified.value.scopes.includes('mcp'))
    return err({ status: 403, message: 'the token does not allow the MCP tools (it lacks the mcp scope)' });
  return ok(verified.value);
}
