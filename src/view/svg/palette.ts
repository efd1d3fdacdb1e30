/** Chart colours (one place, so report, dashboard and legends agree). */
export const COLORS = {
  model: '#4e79a7',
  tool: '#35b28a',
  wait: '#d6a14b',
  error: '#e15759',
  critical: '#d62728',
  criticalBand: '#fde2e2',
  uncached: '#4e79a7',
  cached: '#a0cbe8',
  cacheWrite: '#f28e2b',
  output: '#59a14f',
  cost: '#b07aa1',
  landed: '#59a14f',
  rejected: '#e15759',
  grid: '#e6e6e6',
  axis: '#666',
} as const;
