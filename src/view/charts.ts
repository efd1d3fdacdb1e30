/** Every chart of a run as standalone SVG strings (the report writes them as files too). */
import { renderGantt } from './svg/gantt.js';
import { renderCostChart, renderMergesChart, renderTokensChart } from './svg/usage-charts.js';
import type { RunView } from './types.js';

export interface RunCharts {
  timeline: string;
  tokens: string;
  cost: string;
  merges: string;
}

export function renderRunCharts(view: RunView, options: { width?: number } = {}): RunCharts {
  return {
    timeline: renderGantt(view, options),
    tokens: renderTokensChart(view, options),
    cost: renderCostChart(view, options),
    merges: renderMergesChart(view, options),
  };
}
