/**
 * The run view: a run's events folded into plain data, and SVG charts of it. Browser-safe (no Node
 * imports): the dashboard loads the compiled files from dist/src/view/ as ES modules.
 */
export { type RunCharts, renderRunCharts } from './charts.js';
export { criticalPath } from './critical-path.js';
export { formatCount, formatDuration, formatOffset, formatUsd } from './format.js';
export { type ProgressOptions, progressLines } from './progress-lines.js';
export { applyEvent, emptyRunState, type RunState } from './run-state.js';
export { buildRunView, toRunView } from './run-view.js';
export { mergeSeries, usageSeries } from './series.js';
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
