/**
 * `colony plan`: how big a team a run's work could use. Its task graph (from-run.ts: orchestrated,
 * workflow DAG, task board or one task per agent; from-file.ts before any run), work and span
 * (graph-math.ts), a list schedule (list-schedule.ts) with file conflicts (conflicts.ts), Monte-Carlo
 * makespan and cost (monte-carlo.ts), the recommended size (recommend.ts), the chart page
 * (plan-page.ts), and the calibration against recorded runs (check.ts, check-eval.ts).
 */
export * from './check.js';
export * from './check-eval.js';
export * from './conflicts.js';
export * from './format-check.js';
export * from './format-plan.js';
export * from './from-board.js';
export * from './from-file.js';
export * from './from-run.js';
export * from './from-workflow.js';
export * from './graph-math.js';
export * from './landed-merges.js';
export * from './list-schedule.js';
export * from './load-run.js';
export * from './monte-carlo.js';
export * from './plan.js';
export * from './plan-chart.js';
export * from './plan-page.js';
export * from './recommend.js';
export * from './task-graph.js';
