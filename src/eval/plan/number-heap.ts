/**
 * A binary min-heap of numbers (task ranks, agent numbers) ordered by `before`: the list schedule
 * runs per Monte-Carlo sample and team size, so it keeps plain numbers, not an object per entry.
 */
export class NumberHeap {
  private readonly items: number[] = [];

  constructor(private readonly before: (a: number, b: number) => boolean = (a, b) => a < b) {}

  get size(): number {
    return this.items.length;
  }

  peek(): number | undefined {
    return this.items[0];
  }

  push(value: number): void {
    const items = this.items;
    let i = items.length;
    items.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent] as number;
      if (!this.before(value, p)) break;
      items[i] = p;
      i = parent;
    }
    items[i] = value;
  }

  pop(): number | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    const n = items.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.before(items[right] as number, items[left] as number) ? right : left;
      if (!this.before(items[child] as number, last)) break;
      items[i] = items[child] as number;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
