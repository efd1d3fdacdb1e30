/**
 * The clustered percentile bootstrap of any statistic of the units (not only their mean): the same
 * two-stage draw as cluster-bootstrap.ts (repositories with replacement, then tasks with replacement
 * within each drawn repository), the statistic computed on each resample. Used for ratios such as
 * cost per success (Σ cost / Σ passes over the resampled tasks), where the mean of per-task values
 * would be the wrong estimator. A resample whose statistic is not finite (no pass drawn: an unbounded
 * cost per success) counts as +∞, so an upper bound it reaches is reported as unbounded (null).
 */
import { groupByCluster } from './cluster-bootstrap.js';
import { quantileSorted } from './descriptive.js';
import { createRng } from './rng.js';

export interface ClusteredUnit<T> {
  cluster: string;
  value: T;
}

export interface StatInterval {
  estimate: number | null;
  lo: number | null;
  /** null: unbounded (a share of the resamples above the upper quantile had no finite value). */
  hi: number | null;
}

export function clusterBootstrapStat<T>(
  units: readonly ClusteredUnit<T>[],
  statistic: (values: readonly T[]) => number,
  options: { resamples?: number; confidence?: number; seed?: number } = {},
): StatInterval {
  const finite = (v: number) => (Number.isFinite(v) ? v : null);
  const estimate = units.length > 0 ? finite(statistic(units.map((u) => u.value))) : null;
  if (units.length === 0) return { estimate, lo: null, hi: null };
  const resamples = options.resamples ?? 2000;
  const confidence = options.confidence ?? 0.95;
  const rng = createRng(options.seed ?? 1);
  const clusters = groupByCluster(units);
  const stats: number[] = [];
  for (let b = 0; b < resamples; b++) {
    const drawn: T[] = [];
    for (let c = 0; c < clusters.length; c++) {
      const values = clusters[rng.int(clusters.length)] ?? [];
      for (let i = 0; i < values.length; i++) {
        const v = values[rng.int(values.length)];
        if (v !== undefined) drawn.push(v);
      }
    }
    const s = statistic(drawn);
    stats.push(Number.isNaN(s) ? Number.POSITIVE_INFINITY : s);
  }
  stats.sort((x, y) => x - y);
  const tail = (1 - confidence) / 2;
  return {
    estimate,
    lo: finite(quantileSorted(stats, tail)),
    hi: finite(quantileSorted(stats, 1 - tail)),
  };
}
