/** `colony eval run`: a suite × arms × trials as real Colony runs, graded into trial records. */

export { type ColonyRunResult, colonyBin, runColony } from './colony-run.js';
export { recordedTrials, trialKey } from './recorded.js';
export { isSimulated, RUN_TOPOLOGIES, type RunArm, runArmsOf } from './run-arm.js';
export {
  ARMS_FILE,
  type EvalRunOptions,
  type EvalRunResult,
  NOTES_FILE,
  runEval,
  TRIALS_FILE,
} from './run-eval.js';
export { runTrial, type TrialContext, type TrialJob, type TrialResult } from './run-trial.js';
export { trialModel } from './trial-model.js';
