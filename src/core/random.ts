/**
 * A small seeded random number generator (mulberry32): the same seed gives the same sequence, so a
 * scripted scenario, a bench workload or a failing test schedule can be replayed from its seed.
 * Not for anything secret.
 *
 * A class, not a closure over its state: V8 inlines the method and keeps the state in a field, where
 * the closure's captured variable cost a context load and store per draw — the eval's bootstrap
 * draws millions (the coverage tests ran ~2× slower with the closure; the sequence is the same).
 */
export class Mulberry32 {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

export function seededRandom(seed: number): () => number {
  const generator = new Mulberry32(seed);
  return () => generator.next();
}
