/**
 * In-process group commit: items queued in one turn of the event loop (and while a flush is in
 * flight) are flushed together, one key (run) at a time, by `flush(key, items)`, which returns one
 * output per item. One flush at a time keeps per-run order and bounds connections. Claims use it:
 * every claim change commits (an fsync) while holding the run's claims lock, so batching is what lets
 * a thousand claimants through.
 */
interface Pending<I, O> {
  key: string;
  item: I;
  resolve(value: O): void;
  reject(err: Error): void;
}

export class KeyedBatcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private flushing = false;
  private scheduled = false;

  constructor(
    private readonly flush: (key: string, items: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
  ) {}

  add(key: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ key, item, resolve, reject });
      if (this.scheduled || this.flushing) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.drain();
      });
    });
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const first = this.queue[0]!.key;
      const batch: Pending<I, O>[] = [];
      const rest: Pending<I, O>[] = [];
      for (const p of this.queue) (p.key === first && batch.length < this.maxBatch ? batch : rest).push(p);
      this.queue = rest;
      try {
        const out = await this.flush(
          first,
          batch.map((p) => p.item),
        );
        batch.forEach((p, i) => {
          if (i < out.length) p.resolve(out[i] as O);
          else p.reject(new Error('batch returned fewer results than items'));
        });
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        for (const p of batch) p.reject(error);
      }
    }
    this.flushing = false;
  }
}
