import { describe, expect, it } from 'vitest';
import { normalQuantile } from '../../../src/eval/stats/normal.js';

describe('normalQuantile', () => {
  // R: qnorm(p), printed with digits = 16.
  it.each([
    [0.975, 1.959963984540054],
    [0.8, 0.8416212335729143],
    [0.5, 0],
    [0.001, -3.090232306167813],
    [0.02, -2.053748910631823],
    [0.99, 2.326347874040841],
    [1e-10, -6.361340902404056],
  ])('qnorm(%f) = %f', (p, z) => {
    expect(normalQuantile(p)).toBeCloseTo(z, 7);
  });

  it('is antisymmetric and infinite at the ends', () => {
    expect(normalQuantile(0.3)).toBeCloseTo(-normalQuantile(0.7), 12);
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(normalQuantile(1)).toBe(Number.POSITIVE_INFINITY);
    expect(normalQuantile(1.5)).toBeNaN();
  });
});
