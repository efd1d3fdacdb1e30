/**
 * Postgres went away for a moment (a crash and restart, a failover, a dropped connection): the errors
 * that say so, and waiting them out. A worker that takes an agent's session while its database
 * restarts waits for it instead of ending the session as failed (which would end the agent for good).
 */

/** SQLSTATE classes and codes of a server that is not there (now): connection exceptions, shutdowns. */
const AWAY_CODES = /^(08\d{3}|57P01|57P02|57P03)$/;
const AWAY_TEXT =
  /Connection terminated|terminating connection|ECONNREFUSED|ECONNRESET|EPIPE|the database system is (starting up|shutting down|in recovery mode)|Connection ended unexpectedly|timeout exceeded when trying to connect|Client has encountered a connection error/i;

export function databaseAway(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && AWAY_CODES.test(code)) return true;
  return AWAY_TEXT.test(error instanceof Error ? error.message : String(error));
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
