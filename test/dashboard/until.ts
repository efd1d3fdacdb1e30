/** Polls `check` every 100 ms until it gives a truthy value (returned), or throws naming `what`. */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs: number,
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
