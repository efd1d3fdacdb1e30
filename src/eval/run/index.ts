/** `colony eval run`: a suite × arms × trials as real Colony runs, graded into trial records. */

export { colonyBin } from '../../core/package-root.js';
export { type ColonyRunOptions, type ColonyRunResult, runColony } from './colony-run.js';
export {
  firstGreenMsOf,
  type GreenEvent,
  type GreenRules,
  type GreenWatch,
  NO_GREEN,
  noteGreen,
} from './first-green.js';
export { recordedTrials, trialKey } from './recorded.js';
export {
  armModels,
  isSimulated,
  MODEL_ROLES,
  RUN_TOPOLOGIES,
  type RunArm,
  type RunArmsContext,
  runArmsOf,
} from './run-arm.js';
export {
  ARMS_FILE,
  type EvalRunOptions,
  type EvalRunResult,
  NOTES_FILE,
  runEval,
  TASKS_FILE,
  TASKS_FILE_VERSION,
  TRIALS_FILE,
} from './run-eval.js';
export {
  runArgs,
  runTrial,
  type TrialContext,
  type TrialJob,
  type TrialResult,
  trialConfig,
} from './run-trial.js';
export { trialModel, trialModelId } from './trial-model.js';
export {
  TRAJECTORIES_DIR,
  type TrajectoryExport,
  trajectoryFile,
  writeTrialTrajectory,
} from './trial-trajectory.js';
