/**
 * Wakes agents waiting in `claim_next {wait}` when the task board may have changed in this process
 * (tasks added, a claim released). Changes made by other processes (fleet workers) and lapsed leases
 * are seen by the waiters' periodic re-check.
 */
export class BoardSignal {
  private waiters = new Set<() => void>();

  /** Something on the board changed: every waiter looks again. */
  bump(): void {
    const woken = this.waiters;
    this.waiters = new Set();
    for (const wake of woken) wake();
  }

  /** Resolves at the next bump, after `ms`, or when `signal` aborts. */
  changed(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
