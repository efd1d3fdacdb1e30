/**
 * Kept for importers outside src/view (test/workflow, cli/demos/review-demo.ts): the workflow stage
 * path is defined in critical-path.ts, as a projection of the one fold. Import it from there.
 */
export { type WorkflowCriticalPath, workflowCriticalPath } from './critical-path.js';
