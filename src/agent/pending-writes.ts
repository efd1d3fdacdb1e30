/**
 * Log appends the loop does not wait for at once. The event log commits in order, so anything
 * appended later commits after these; `settle()` is called before a side effect that must not run
 * unless the log already holds what led to it (a tool that changes files), and surfaces any failure.
 */
export class PendingWrites {
  private pending: Array<Promise<void>> = [];
  private failure: Error | null = null;

  track(write: Promise<unknown>): void {
    this.pending.push(
      write.then(
        () => undefined,
        (err: unknown) => {
          this.failure ??= err instanceof Error ? err : new Error(String(err));
        },
      ),
    );
  }

  async settle(): Promise<void> {
    const waiting = this.pending;
    this.pending = [];
    await Promise.all(waiting);
    if (this.failure) throw this.failure;
  }
}
