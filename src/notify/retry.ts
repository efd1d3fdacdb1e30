/** A delivery tried a few times with growing pauses, its outcome as data. */

/** Pauses before the 2nd and 3rd tries: three tries in all. */
export const RETRY_DELAYS_MS = [500, 2_000] as const;

export type Delivered = { ok: true; attempt: number } | { ok: false; attempts: number; error: string };

export async function withRetries(
  attempt: () => Promise<{ ok: true } | { ok: false; error: string }>,
  delaysMs: readonly number[] = RETRY_DELAYS_MS,
): Promise<Delivered> {
  let error = 'not tried';
  for (let n = 1; n <= delaysMs.length + 1; n++) {
    const result = await attempt();
    if (result.ok) return { ok: true, attempt: n };
    error = result.error;
    const pause = delaysMs[n - 1];
    if (pause !== undefined) await new Promise((resolve) => setTimeout(resolve, pause));
  }
  return { ok: false, attempts: delaysMs.length + 1, error };
}
