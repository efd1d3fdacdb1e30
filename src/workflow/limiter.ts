/**
 * Agent slots of a workflow run: the contract of the run scheduler (src/run/scheduler.ts), which
 * backs it in a real run — at most `concurrency` agents at once, higher priority first (then the
 * longer remaining critical path), start limits.
 */
export type SlotError = { kind: 'thread_limit_error' | 'agent_limit_error' | 'aborted'; message: string };
export type SlotResult<T> = { ok: true; value: T } | { ok: false; error: SlotError };

export interface AgentSlots {
  /**
   * `priority` (the step's option) goes first; `rank` (the step's remaining critical path in its
   * `w.dag`, critical-path.ts) breaks ties among waiting starts of one priority.
   */
  run<T>(
    agent: string,
    fn: () => Promise<T>,
    options?: { priority?: number; rank?: number },
  ): Promise<SlotResult<T>>;
  /**
   * Defers every grant until the returned function is called (the scheduler's `hold`): the engine
   * holds while a finished step's consequences are logged, so the steps it made ready compete for
   * the slot it frees. Optional: slots without it grant first come, first served.
   */
  hold?(): () => void;
}

/** A plain limiter for w.map's `concurrency` (no priorities). */
export async function mapLimited<I, T>(
  items: readonly I[],
  limit: number,
  fn: (item: I, index: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as I, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
