/** Task suites of `colony eval` (docs/eval-suites.md): format, loading, grading, validation, importers. */
export { applyPatch, cloneAt, copyTree, materializeRepo } from './checkout.js';
export {
  type CommandRecord,
  type Grade,
  type GradeOptions,
  type GradeOutcome,
  gradeTree,
} from './grade.js';
export { loadSuite, loadTask } from './load.js';
export { applyMutants, describeMutant, findMutants, type Mutant, type MutantKind } from './mutants.js';
export { isTestFile, type PlantOptions, type PlantResult, plantTask } from './plant.js';
export { parseResults, type TestResult, type TestStatus } from './results/index.js';
export {
  HIDDEN_PATCH,
  importSweBench,
  parseSweBenchInstances,
  type SweBenchImportOptions,
  type SweBenchInstance,
  sweBenchTaskSpec,
  taskIdOf,
} from './swe-bench.js';
export {
  REFERENCE_PATCH,
  RESULT_FORMATS,
  type ResultFormat,
  repoKeyOf,
  SUITE_FILE,
  type Suite,
  type SuiteSpec,
  TASK_FILE,
  TASK_FORMAT_VERSION,
  type Task,
  type TaskSpec,
  taskSpecSchema,
} from './task.js';
export {
  type SuiteValidation,
  type TaskValidation,
  type ValidateOptions,
  validateSuite,
  validateTask,
} from './validate.js';
export { type CheckStatus, judge, type TestCheck, type Verdict } from './verdict.js';
