/** Token and cost series over time, bucketed so 100k calls draw as a few hundred points. */
import type { UsagePoint, UsageSeries } from './types.js';

export function usageSeries(
  points: readonly UsagePoint[],
  startMs: number,
  endMs: number,
  buckets = 60,
): UsageSeries {
  const count = Math.max(1, Math.floor(buckets));
  const bucketMs = Math.max(1, endMs - startMs) / count;
  const out = Array.from({ length: count }, (_, i) => ({
    tMs: startMs + (i + 1) * bucketMs,
    uncached: 0,
    cached: 0,
    cacheWrite: 0,
    output: 0,
    costUsd: 0,
    cumUncached: 0,
    cumCached: 0,
    cumOutput: 0,
    cumCostUsd: 0,
  }));
  for (const p of points) {
    const i = Math.min(count - 1, Math.max(0, Math.floor((p.tMs - startMs) / bucketMs)));
    const bucket = out[i];
    if (!bucket) continue;
    bucket.uncached += p.uncached;
    bucket.cached += p.cached;
    bucket.cacheWrite += p.cacheWrite;
    bucket.output += p.output;
    bucket.costUsd += p.costUsd ?? 0;
  }
  let u = 0;
  let c = 0;
  let o = 0;
  let usd = 0;
  for (const bucket of out) {
    u += bucket.uncached;
    c += bucket.cached;
    o += bucket.output;
    usd += bucket.costUsd;
    bucket.cumUncached = u;
    bucket.cumCached = c;
    bucket.cumOutput = o;
    bucket.cumCostUsd = usd;
  }
  return { startMs, bucketMs, buckets: out };
}

/** Landed and rejected merges counted up over time (a step series: one point per decision). */
export function mergeSeries(
  merges: ReadonlyArray<{ status: string; decidedMs: number | null }>,
): Array<{ tMs: number; landed: number; rejected: number }> {
  const decided = merges
    .filter((m) => m.decidedMs !== null && (m.status === 'landed' || m.status === 'rejected'))
    .sort((a, b) => (a.decidedMs ?? 0) - (b.decidedMs ?? 0));
  let landed = 0;
  let rejected = 0;
  return decided.map((m) => {
    if (m.status === 'landed') landed += 1;
    else rejected += 1;
    return { tMs: m.decidedMs ?? 0, landed, rejected };
  });
}
