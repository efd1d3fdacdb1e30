/**
 * The seeded random source of the statistics and the simulator: core's mulberry32 behind a seed
 * mixer, so neighbouring seeds (1, 2, 3… in a coverage test) start far apart in its sequence.
 */
import { Mulberry32 } from '../../core/random.js';

/** Methods, not functions to pass around: call them on the Rng (`rng.next()`, `rng.int(n)`). */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
}

/** A 32-bit integer hash (murmur3's finaliser): distinct seeds map to unrelated states. */
function mix(seed: number): number {
  let h = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export function createRng(seed: number): Rng {
  return new Mulberry32(mix(seed));
}
