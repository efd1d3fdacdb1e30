/** `colony eval report`: trial records → EvalSummary (plain data, --json) and a self-contained HTML page. */
export { renderCostParetoChart } from './cost-chart.js';
export { evalPage } from './eval-page.js';
export { DEFAULT_EVAL_OPTIONS, type EvalOptions } from './options.js';
export { type EvalChartOptions, renderPassRateChart } from './pass-rate-chart.js';
export { type EvalDir, issueLines, readEvalDir } from './read-eval-dir.js';
export { renderSolvedChart } from './solved-chart.js';
export { summarizeEval } from './summarize.js';
export * from './summary-types.js';
export { renderWinLossChart } from './win-loss-chart.js';
export { type EvalReport, evalReport, writeEvalPage } from './write-eval-report.js';
