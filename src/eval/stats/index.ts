/** The statistics of `colony eval`: pure functions over numbers, deterministic for a given seed. */
export { binomialHalfCdf, binomialHalfTwoSided } from './binomial.js';
export {
  type BootstrapInterval,
  type BootstrapOptions,
  type ClusteredValue,
  clusterBootstrapMean,
} from './cluster-bootstrap.js';
export {
  type ClusteredUnit,
  clusterBootstrapStat,
  type StatInterval,
} from './cluster-bootstrap-stat.js';
export { costPerSuccess } from './cost.js';
export { mean, median, quantile, quantileSorted, sampleSd, sum } from './descriptive.js';
export { holmAdjust } from './holm.js';
export { mcnemarExact } from './mcnemar.js';
export { type MdeResult, minimumDetectableEffect } from './mde.js';
export { normalQuantile } from './normal.js';
export {
  discordantCounts,
  oneTrialEach,
  type PairedTask,
  type Pairing,
  pairTasks,
  type TaskTally,
} from './paired.js';
export { type ParetoPoint, paretoFrontier } from './pareto.js';
export { type PassAtKRow, passAtK, passHatK, suitePassAtK, type TaskCounts } from './pass-at-k.js';
export { createRng, type Rng } from './rng.js';
export { type SignFlipOptions, type SignFlipResult, signFlipTest } from './sign-flip.js';
export { type SolvedPoint, solvedCurve } from './solved-curve.js';
export { tIntervalMean, tQuantile } from './t-interval.js';
export { type Interval, wilsonInterval } from './wilson.js';
