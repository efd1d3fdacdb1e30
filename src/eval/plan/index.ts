/**
 * `colony plan`: how big a team a recorded run's work could use. Its task graph (from-run.ts), work
 * and span (graph-math.ts), a list schedule (list-schedule.ts) with file conflicts (conflicts.ts),
 * Monte-Carlo makespan and cost (monte-carlo.ts) and the recommended size (recommend.ts).
 */
export * from './conflicts.js';
export * from './format-plan.js';
export * from './from-run.js';
export * from './graph-math.js';
export * from './list-schedule.js';
export * from './monte-carlo.js';
export * from './plan.js';
export * from './recommend.js';
export * from './task-graph.js';
