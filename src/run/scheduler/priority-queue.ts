/**
 * A binary heap of waiters: higher priority first, then higher rank (a workflow step's remaining
 * critical path; 0 when the caller gave none), first-in-first-out within both (by a sequence
 * number), so a wide graph with thousands of queued starts stays O(log n) per operation.
 */
interface Entry<T> {
  priority: number;
  rank: number;
  seq: number;
  value: T;
}

export class PriorityQueue<T> {
  private readonly heap: Entry<T>[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(value: T, priority: number, rank = 0): void {
    this.heap.push({ priority, rank, seq: this.nextSeq++, value });
    this.up(this.heap.length - 1);
  }

  pop(): T | undefined {
    const top = this.heap[0];
    const last = this.heap.pop();
    if (top === undefined || last === undefined) return undefined;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return top.value;
  }

  /** Removes and returns every entry (in no particular order). */
  drain(): T[] {
    const values = this.heap.map((entry) => entry.value);
    this.heap.length = 0;
    return values;
  }

  private before(a: Entry<T>, b: Entry<T>): boolean {
    if (a.priority !== b.priority) return a.priority > b.priority;
    return a.rank !== b.rank ? a.rank > b.rank : a.seq < b.seq;
  }

  private up(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const a = this.heap[i] as Entry<T>;
      const p = this.heap[parent] as Entry<T>;
      if (!this.before(a, p)) break;
      this.heap[i] = p;
      this.heap[parent] = a;
      i = parent;
    }
  }

  private down(index: number): void {
    let i = index;
    const n = this.heap.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < n && this.before(this.heap[left] as Entry<T>, this.heap[best] as Entry<T>)) best = left;
      if (right < n && this.before(this.heap[right] as Entry<T>, this.heap[best] as Entry<T>)) best = right;
      if (best === i) return;
      const tmp = this.heap[i] as Entry<T>;
      this.heap[i] = this.heap[best] as Entry<T>;
      this.heap[best] = tmp;
      i = best;
    }
  }
}
