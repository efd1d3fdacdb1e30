/** Collects streamed output, keeping the first and last `max / 2` characters of anything longer. */
export class OutputCap {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly half: number;

  constructor(readonly max: number) {
    this.half = Math.floor(max / 2);
  }

  push(chunk: string): void {
    this.total += chunk.length;
    const room = this.half - this.head.length;
    if (room > 0) {
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk.length === 0) return;
    this.tail += chunk;
    // Trim lazily so a stream of small chunks stays linear.
    if (this.tail.length > this.half * 2) this.tail = this.tail.slice(-this.half);
  }

  get length(): number {
    return this.total;
  }

  text(): string {
    const tail = this.tail.length > this.half ? this.tail.slice(-this.half) : this.tail;
    const cut = this.total - this.head.length - tail.length;
    if (cut <= 0) return this.head + tail;
    return `${this.head}\n\n[… ${cut} characters cut from the middle of the output (${this.total} in total) …]\n\n${tail}`;
  }
}
