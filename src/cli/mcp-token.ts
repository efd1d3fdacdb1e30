/**
 * A run's agent tokens for `colony mcp`. `colony mcp token` issues one (scope `mcp` only) with the
 * run's secret. `colony mcp` checks its token at start and before every tool call: the run's secret
 * is read from the database each time (a resumed owner replaces it, which revokes the old tokens),
 * then the token is verified (signature, run, expiry, `mcp` scope) and, for a fleet
 * session's token, its epoch must still be the session's (fencing). Today the only place a run's
 * secret lives outside its owner's memory is the fleet's row (`colony.fleet_runs`, fleet/fleet-db.ts).
 */
import type pg from 'pg';
import { type AgentTokenClaims, issueAgentToken } from '../auth/index.js';
import { loadFleetRun, sessionEpochs, sessionKey } from '../fleet/fleet-db.js';
import { err, ok, type Result } from '../lang/result.js';
import { checkMcpToken } from '../mcp/index.js';

/** Why a run cannot have tokens checked or issued: it keeps no secret in the database. */
function noSecret(runId: string, what: string): string {
  return (
    `run ${runId} keeps no agent-token secret (only runs started with --workers have one today), ` +
    `so no token of it can be ${what}`
  );
}

/** A token for `agent` of `runId` that `colony mcp` accepts until `expiresAt` (ms). */
export async function issueRunAgentToken(
  pool: pg.Pool,
  runId: string,
  agent: string,
  expiresAt: number,
): Promise<Result<string>> {
  const fleet = await loadFleetRun(pool, runId);
  if (!fleet) return err(noSecret(runId, 'issued'));
  if (fleet.stopReason !== null) return err(`run ${runId} has ended (${fleet.stopReason})`);
  return ok(issueAgentToken(fleet.tokenSecret, { runId, agent, expiresAt, scopes: ['mcp'] }));
}

export async function checkRunAgentToken(
  pool: pg.Pool,
  runId: string,
  token: string,
  now: number,
): Promise<Result<AgentTokenClaims>> {
  const fleet = await loadFleetRun(pool, runId);
  if (!fleet) return err(noSecret(runId, 'checked'));
  const checked = checkMcpToken(token, { runId, secret: fleet.tokenSecret }, now);
  if (!checked.ok) return err(checked.error.message);
  if (fleet.stopReason !== null) return err(`run ${runId} has ended (${fleet.stopReason})`);
  const claims = checked.value;
  if (claims.epoch === undefined) return ok(claims);
  const epochs = await sessionEpochs(pool, [{ runId, agent: claims.agent }]);
  const current = epochs.get(sessionKey(runId, claims.agent));
  return current === claims.epoch
    ? ok(claims)
    : err(
        `the session of ${claims.agent} was taken over (epoch ${current ?? 'none'}, token ${claims.epoch})`,
      );
}
