/**
 * Group commit, once for every writer that commits many small items (the event log, claims, the
 * shared context): items added in one turn of the event loop, and while a commit is in flight, are
 * committed together by `commit(items)`, which settles each item with a Result. One commit at a time
 * keeps items in the order they were added and bounds connections; a thousand agents' appends cost
 * a handful of statements.
 */
import type { Result } from '../lang/result.js';

export interface GroupCommitOptions<I, O> {
  /** Commits a batch; returns one Result per item, in order (a missing one rejects that item). */
  commit(items: I[]): Promise<Result<O, Error>[]>;
  /** Most items in one commit (default 1000). */
  maxBatch?: number;
  /** When set, one commit takes only items of one key (the oldest item's), in order. */
  keyOf?(item: I): string;
}

interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: Error): void;
}

export class GroupCommit<I, O> {
  private queue: Pending<I, O>[] = [];
  private committing = false;
  private scheduled = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: GroupCommitOptions<I, O>) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.scheduled || this.committing) return;
      this.scheduled = true;
      // setImmediate lets every add issued in this turn of the event loop join the batch.
      setImmediate(() => {
        this.scheduled = false;
        void this.drain();
      });
    });
  }

  /** Resolves once nothing is queued or in flight. */
  async idle(): Promise<void> {
    if (!this.committing && !this.scheduled && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private next(): Pending<I, O>[] {
    const max = this.options.maxBatch ?? 1000;
    const keyOf = this.options.keyOf;
    const first = this.queue[0];
    if (!keyOf || !first) return this.queue.splice(0, max);
    const key = keyOf(first.item);
    const batch: Pending<I, O>[] = [];
    const rest: Pending<I, O>[] = [];
    for (const p of this.queue) (batch.length < max && keyOf(p.item) === key ? batch : rest).push(p);
    this.queue = rest;
    return batch;
  }

  private async drain(): Promise<void> {
    this.committing = true;
    while (this.queue.length > 0) {
      const batch = this.next();
      let results: Result<O, Error>[];
      try {
        results = await this.options.commit(batch.map((p) => p.item));
      } catch (cause) {
        const error = cause instanceof Error ? cause : new Error(String(cause));
        for (const p of batch) p.reject(error);
        continue;
      }
      batch.forEach((p, i) => {
        const result = results[i];
        if (!result) p.reject(new Error('group commit: fewer results than items'));
        else if (result.ok) p.resolve(result.value);
        else p.reject(result.error);
      });
    }
    this.committing = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * Group commit per key (a run): `flush(key, items)` commits items of one key and returns one output
 * per item; a batch never mixes keys. Claims use it: every claim change commits while holding the
 * run's claims lock, so batching is what lets a thousand claimants through.
 */
export class KeyedGroupCommit<I, O> {
  private readonly commits: GroupCommit<{ key: string; item: I }, O>;

  constructor(flush: (key: string, items: I[]) => Promise<O[]>, maxBatch = 500) {
    this.commits = new GroupCommit({
      keyOf: (entry) => entry.key,
      maxBatch,
      commit: async (entries) => {
        const key = entries[0]?.key ?? '';
        const out = await flush(
          key,
          entries.map((e) => e.item),
        );
        return entries.map((_, i) =>
          i < out.length
            ? { ok: true as const, value: out[i] as O }
            : { ok: false as const, error: new Error('batch returned fewer results than items') },
        );
      },
    });
  }

  add(key: string, item: I): Promise<O> {
    return this.commits.add({ key, item });
  }
}
