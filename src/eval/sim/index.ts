/**
 * SIMULATED trials with a known truth (the `sim:` truth model): for validating the statistics and
 * trying the report without spending on real runs. Nothing here calls a model.
 */

export {
  type SimPopulation,
  sampleSimTasks,
  simTruthFrom,
  trueDifference,
  truePassRate,
} from './sim-population.js';
export { type SimArm, type SimTask, type SimTruth, simArm } from './sim-truth.js';
export { type SimulateOptions, simArms, simulateTrials } from './simulate-trials.js';
