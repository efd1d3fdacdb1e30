/** The front door of a new run: options → a checked spec with its model catalog (build-spec.ts). */
export {
  type BuiltRun,
  buildRunSpec,
  type SpecFields,
  type SpecOptions,
  type SpecResult,
} from './build-spec.js';
export { RUN_DEFAULTS, type RunDefaults } from './defaults.js';
export { describeProblem, peerRange, type SpecProblem } from './spec-problem.js';
