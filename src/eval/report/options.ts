/** The knobs of the report's statistics (defaults: 95% intervals, alpha 0.05, power 0.8, seed 1). */

export interface EvalOptions {
  /** Seed of every resampling: the same records and seed give the same report. */
  seed: number;
  resamples: number;
  confidence: number;
  alpha: number;
  power: number;
  /** Below this many tasks the bootstrap is too narrow: intervals take the wider of it and Wilson's (pass rate) or t (difference). */
  smallN: number;
  /** pass@k / pass^k are reported for these k (those the trials allow). */
  ks: readonly number[];
  /** Arm-vs-arm comparisons to make: [A, B] compares A with B (B in the baseline's place). */
  compare: readonly (readonly [string, string])[];
}

export const DEFAULT_EVAL_OPTIONS: EvalOptions = {
  seed: 1,
  resamples: 2000,
  confidence: 0.95,
  alpha: 0.05,
  power: 0.8,
  smallN: 30,
  ks: [1, 2, 3, 5, 10],
  compare: [],
};
