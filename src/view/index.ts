/**
 * The run view: a run's events folded into plain data, and SVG charts of it. Browser-safe (no Node
 * imports): the dashboard loads the compiled files from dist/src/view/ as ES modules.
 */
export { type RunCharts, renderRunCharts } from './charts.js';
export * from './compact-types.js';
export {
  agentRow,
  claimItem,
  contextItem,
  MAX_FEED,
  mergeItem,
  messageItem,
  toCompactView,
} from './compact-view.js';
export { criticalPath, criticalSteps, workflowPath } from './critical-path.js';
export { describeToolCall, oneLine } from './describe.js';
export { formatCount, formatDuration, formatOffset, formatUsd } from './format.js';
export { type LimitRow, limitRows } from './limits.js';
export { type RunMetrics, toRunMetrics } from './metrics.js';
export { type ProgressOptions, progressLines } from './progress-lines.js';
export { applyEvent, emptyRunState, foldEvents, type RunState, WAITING_TOOLS } from './run-state.js';
export { buildRunView, countByState, toRunView, viewAgents, viewLanes, viewTotals } from './run-view.js';
export { mergeSeries, usageSeries } from './series.js';
export { type RunSummary, summarise, type TokenAccount, toRunSummary } from './summary.js';
export { type GanttOptions, renderGantt } from './svg/gantt.js';
export { COLORS } from './svg/palette.js';
export {
  type ChartOptions,
  renderCostChart,
  renderMergesChart,
  renderTokensChart,
} from './svg/usage-charts.js';
export { esc } from './svg/xml.js';
export { aggregateTimeline, barsBetween } from './timeline.js';
export * from './types.js';
