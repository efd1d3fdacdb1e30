/**
 * Agent slots of a workflow run: at most `concurrency` agents at once, higher priority first, FIFO
 * within a priority. The same contract as the run scheduler (src/swarm/scheduler) so either can back it.
 */
export type SlotError = { kind: 'thread_limit_error' | 'agent_limit_error' | 'aborted'; message: string };
export type SlotResult<T> = { ok: true; value: T } | { ok: false; error: SlotError };

export interface AgentSlots {
  run<T>(agent: string, fn: () => Promise<T>, options?: { priority?: number }): Promise<SlotResult<T>>;
}

interface Waiter {
  priority: number;
  seq: number;
  start: () => void;
}

export class LocalSlots implements AgentSlots {
  private active = 0;
  private seq = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly signal?: AbortSignal,
  ) {}

  async run<T>(
    _agent: string,
    fn: () => Promise<T>,
    options: { priority?: number } = {},
  ): Promise<SlotResult<T>> {
    if (this.signal?.aborted)
      return { ok: false, error: { kind: 'aborted', message: 'the run is stopping' } };
    if (this.active >= this.concurrency) {
      await new Promise<void>((start) => {
        this.waiting.push({ priority: options.priority ?? 0, seq: this.seq++, start });
        // Few waiters in a workflow; a sort keeps it obvious (the run scheduler uses a heap).
        this.waiting.sort((a, b) => b.priority - a.priority || a.seq - b.seq);
      });
    } else this.active++;
    try {
      return { ok: true, value: await fn() };
    } finally {
      const next = this.waiting.shift();
      if (next) next.start();
      else this.active--;
    }
  }
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
