/**
 * Comparison of secret bytes whose duration does not depend on where they differ. Lengths are
 * compared first (a signature's length is public: it is fixed by the algorithm); equal lengths go
 * through node:crypto's timingSafeEqual, which would throw on unequal ones.
 */
import { timingSafeEqual } from 'node:crypto';

export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
