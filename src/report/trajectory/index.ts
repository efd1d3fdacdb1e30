export { programId } from './decisions.js';
export { delegationOf, rFinish, rParallel, rPerf } from './rewards.js';
export { type TrajectoryOptions, toJsonl, trajectoryRecords } from './trajectory.js';
export * from './types.js';
