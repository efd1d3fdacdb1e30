import { describe, expect, it } from 'vitest';
import { brentBounds, criticalChain, span, topologicalOrder, work } from '../../../src/eval/plan/index.js';
import { chain, forkJoin, independent, task } from './dags.js';

describe('work and span', () => {
  it('a chain: work = span = the sum', () => {
    expect(work(chain)).toBe(6000);
    expect(span(chain)).toBe(6000);
    expect(criticalChain(chain)).toEqual(['a', 'b', 'c']);
  });

  it('a fork-join: span follows the longest branch', () => {
    expect(work(forkJoin)).toBe(10_000);
    expect(span(forkJoin)).toBe(6000);
    expect(criticalChain(forkJoin)).toEqual(['s', 'x', 'j']);
  });

  it('independent tasks: span is the longest task', () => {
    expect(work(independent)).toBe(10_000);
    expect(span(independent)).toBe(3000);
  });

  it('orders deps first and rejects a cycle', () => {
    const order = topologicalOrder([task('c', 1, ['b']), task('b', 1, ['a']), task('a', 1)]).map((t) => t.id);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(() => topologicalOrder([task('a', 1, ['b']), task('b', 1, ['a'])])).toThrow(/cycle/);
  });
});

describe('Brent bounds', () => {
  it('max(W/p, S) ≤ T_p ≤ W/p + S', () => {
    expect(brentBounds(10_000, 6000, 1)).toEqual({ lower: 10_000, upper: 16_000 });
    expect(brentBounds(10_000, 6000, 4)).toEqual({ lower: 6000, upper: 8500 });
    expect(brentBounds(10_000, 3000, 2)).toEqual({ lower: 5000, upper: 8000 });
  });
});
