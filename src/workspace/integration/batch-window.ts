/**
 * How many queued requests the next candidate takes: an AIMD-style window (Zuul's dependent pipeline).
 * A green candidate of a full window doubles it, up to `max`; a red one halves it, down to 1. A deep
 * queue of good changes so lands in few candidates (few checkouts and verify runs), and a run of bad
 * ones stops paying for long bisections.
 */
export interface BatchWindow {
  readonly size: number;
  /** A candidate of `taken` requests passed. */
  passed(taken: number): void;
  /** A candidate of more than one request failed (before bisection). */
  failed(): void;
}

export function batchWindow(initial: number, max: number): BatchWindow {
  const ceiling = Math.max(1, Math.floor(max));
  let size = Math.min(ceiling, Math.max(1, Math.floor(initial)));
  return {
    get size() {
      return size;
    },
    passed(taken) {
      // Only a full window says the window could be bigger: a half-empty queue says nothing.
      if (taken >= size) size = Math.min(ceiling, size * 2);
    },
    failed() {
      size = Math.max(1, Math.floor(size / 2));
    },
  };
}
