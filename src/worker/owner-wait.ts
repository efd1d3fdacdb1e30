/**
 * A fleet run's owner can be away for a while: killed and not resumed yet, or resumed at a new address
 * with a new token secret that this worker learns at its next tick. A worker's calls to the owner
 * (git over HTTP, the merge-request API) wait for it instead of failing the agent's step: each failure
 * that says "nobody answered" or "that token is from before the resume" is tried again, with a growing
 * pause, until the owner answers, the session stops, or OWNER_WAIT_MS passed.
 */
import type { Result } from '../lang/result.js';

export const OWNER_WAIT_MS = 10 * 60_000;
const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 5000;

/** git's and fetch's words for an owner that is not there (or not the one that signed our token). */
const AWAY =
  /Failed to connect|Connection refused|Could not resolve host|Couldn't connect|Empty reply from server|Connection reset|socket hang up|transfer closed with outstanding|remote end hung up|RPC failed|early EOF|Recv failure|Send failure|timed out|ECONNREFUSED|ECONNRESET|fetch failed|returned error: (401|502|503|504)|Authentication failed|could not read Username/i;

export function ownerAway(error: string): boolean {
  return AWAY.test(error);
}

export async function whileOwnerAway<T>(
  attempt: () => Promise<Result<T>>,
  options: { signal?: AbortSignal; waitMs?: number } = {},
): Promise<Result<T>> {
  const waitMs = options.waitMs ?? OWNER_WAIT_MS;
  const deadline = Date.now() + waitMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const result = await attempt();
    if (result.ok || !ownerAway(result.error) || options.signal?.aborted) return result;
    if (Date.now() >= deadline)
      return {
        ok: false,
        error: `${result.error} (the run's owner did not answer for ${Math.round(waitMs / 1000)} s)`,
      };
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(MAX_PAUSE_MS, pause * 2);
  }
}
