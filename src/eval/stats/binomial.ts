/** Exact binomial tail probabilities for p = 1/2, summed in log space so n in the thousands stays exact enough. */

/** P(X ≤ k) for X ~ Binomial(n, 1/2). */
export function binomialHalfCdf(k: number, n: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  let logTerm = -n * Math.LN2; // log C(n, 0) / 2^n
  let total = Math.exp(logTerm);
  for (let i = 0; i < k; i++) {
    logTerm += Math.log((n - i) / (i + 1));
    total += Math.exp(logTerm);
  }
  return Math.min(1, total);
}

/**
 * The exact two-sided binomial test of p = 1/2 (R: binom.test(k, n)$p.value): the distribution is
 * symmetric, so it is twice the smaller tail, at most 1.
 */
export function binomialHalfTwoSided(k: number, n: number): number {
  if (n === 0) return 1;
  return Math.min(1, 2 * binomialHalfCdf(Math.min(k, n - k), n));
}
