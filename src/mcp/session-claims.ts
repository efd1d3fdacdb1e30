/**
 * The claims of an agent served on stdio (`colony mcp`) are leases like every agent's: no host runs
 * that agent (PeerHost renews the claims of the peers it runs), so its session renews them while it
 * is open and its token still holds. When the session closes, renewal stops and the claims lapse
 * after their lease rather than being released: an agent CLI that restarts its MCP server within the
 * lease keeps what it claimed.
 */
import type { ClaimService, Heartbeat } from '../coord/index.js';

export function renewSessionClaims(
  claims: ClaimService,
  holder: { runId: string; agent: string },
  /** The session's token check (expiry, revocation, the run's end, fencing); false stops renewal for good. */
  tokenHolds: () => Promise<boolean>,
): Heartbeat {
  let holds = true;
  return claims.startHeartbeat(() => {
    // The list is read synchronously at each beat: the token is checked for the next one (a fifth of
    // the lease later), so a revoked token's claims lapse within about one lease.
    if (holds)
      void tokenHolds().then(
        (still) => {
          if (!still) holds = false;
        },
        () => {},
      );
    return holds ? [holder] : [];
  });
}
