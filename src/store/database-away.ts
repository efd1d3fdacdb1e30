/**
 * Postgres went away for a moment (a crash and restart, a failover, a dropped connection): the errors
 * that say so, and waiting them out. A worker that takes an agent's session while its database
 * restarts waits for it instead of ending the session as failed (which would end the agent for good).
 */

/** SQLSTATE classes and codes of a server that is not there (now): connection exceptions, shutdowns. */
const AWAY_CODES = /^(08\d{3}|57P01|57P02|57P03)$/;
/**
 * The same in words, for errors that reach us as text (a reason string, a wrapped message): the
 * server's own messages for those codes (a restart goes "shutting down", "starting up", "not yet
 * accepting connections"), pg's and Node's for a dropped or refused connection, and the code itself
 * as `describeDatabaseError` writes it.
 */
const AWAY_TEXT =
  /Connection terminated|terminating connection|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections|not accepting connections)|Connection ended unexpectedly|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|SQLSTATE (08\d{3}|57P0[123])\b/i;

export function databaseAway(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && AWAY_CODES.test(code)) return true;
  return AWAY_TEXT.test(error instanceof Error ? error.message : String(error));
}

/**
 * An error as text that keeps what `databaseAway` needs: the message, and the SQLSTATE when the
 * server gave one (a reason string loses the error's `code`, and some servers' words differ).
 */
export function describeDatabaseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !message.includes(code)
    ? `${message} (SQLSTATE ${code})`
    : message;
}

export const DATABASE_WAIT_MS = 120_000;
const FIRST_PAUSE_MS = 200;
const MAX_PAUSE_MS = 2_000;

/** Runs `attempt` again while it fails because the database is away, for at most `waitMs`. */
export async function whileDatabaseAway<T>(
  attempt: () => Promise<T>,
  options: { waitMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const deadline = Date.now() + (options.waitMs ?? DATABASE_WAIT_MS);
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!databaseAway(error) || Date.now() >= deadline || options.signal?.aborted) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(MAX_PAUSE_MS, pause * 2);
  }
}
