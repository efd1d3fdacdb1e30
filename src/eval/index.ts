/**
 * `colony eval`: was the team worth it? Trial records (trial-record.ts), their statistics (stats/),
 * the report (report/) and simulated trials with a known truth for validating them (sim/).
 */
export * from './report/index.js';
export * from './sim/index.js';
export * as stats from './stats/index.js';
export * from './trial-record.js';
