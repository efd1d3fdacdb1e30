export { reportPage } from './report-page.js';
export { type RunFacts, runFacts, type SwarmMetrics, swarmMetrics } from './run-metrics.js';
export { type WrittenReport, writeReport } from './write-report.js';
