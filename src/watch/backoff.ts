/**
 * Waiting after a failure: each failure in a row doubles the wait from `baseMs` up to `maxMs`; a
 * success starts again from the poll interval. A forge that answers 401, 429 or 5xx, or does not
 * answer, slows the watch down instead of making it spin (or exit and be restarted in a loop).
 */
export interface Backoff {
  /** The wait after one more failure. */
  failed(): number;
  succeeded(): void;
  failures(): number;
}

export function backoff(baseMs: number, maxMs: number): Backoff {
  let count = 0;
  return {
    failed() {
      count++;
      return Math.min(maxMs, baseMs * 2 ** (count - 1));
    },
    succeeded() {
      count = 0;
    },
    failures: () => count,
  };
}

/** The HTTP status in a forge error line (`GET /repos/o/r → 401: Bad credentials`), if any. */
export function forgeStatus(error: string): number | null {
  const found = /→ (\d{3}):/.exec(error);
  return found ? Number(found[1]) : null;
}

/** What a forge error means for the person running the watch, in one line. */
export function forgeErrorHint(error: string, tokenVariable: string): string {
  const status = forgeStatus(error);
  if (status === 401) return `the forge refused the token: check ${tokenVariable}`;
  if (status === 403) return `the token may not do this (or a rate limit): check ${tokenVariable}'s rights`;
  if (status === 404) return 'no such repository for this token (or the token may not see it)';
  if (status === 429) return 'rate limited by the forge';
  if (status !== null && status >= 500) return 'the forge is failing';
  if (/could not reach|timeout|aborted/i.test(error)) return 'the forge did not answer';
  return 'the forge refused the request';
}
