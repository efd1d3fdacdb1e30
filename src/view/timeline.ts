/** Timeline helpers: the aggregated view of many lanes (1,000 agents do not fit as rows). */
import type { AggregatedTimeline, TimelineLane } from './types.js';

/**
 * Per bucket, the time-weighted number of agents in a model call and in a tool call: a bar that
 * covers half a bucket adds 0.5. Cost is O(bars + buckets touched), fine for 100k events.
 */
export function aggregateTimeline(
  lanes: readonly TimelineLane[],
  startMs: number,
  endMs: number,
  buckets = 120,
): AggregatedTimeline {
  const count = Math.max(1, Math.floor(buckets));
  const span = Math.max(1, endMs - startMs);
  const bucketMs = span / count;
  const out = Array.from({ length: count }, (_, i) => ({ tMs: startMs + i * bucketMs, model: 0, tool: 0 }));
  for (const lane of lanes)
    for (const bar of lane.bars) {
      const from = Math.max(bar.startMs, startMs);
      const to = Math.min(bar.endMs, endMs);
      if (to <= from) continue;
      const first = Math.min(count - 1, Math.floor((from - startMs) / bucketMs));
      const last = Math.min(count - 1, Math.floor((to - startMs) / bucketMs));
      for (let i = first; i <= last; i += 1) {
        const bucket = out[i];
        if (!bucket) continue;
        const overlap = Math.min(to, bucket.tMs + bucketMs) - Math.max(from, bucket.tMs);
        if (overlap > 0) bucket[bar.kind] += overlap / bucketMs;
      }
    }
  return { startMs, bucketMs, buckets: out, agents: lanes.length };
}

/** Bars that overlap [fromMs, toMs] (for a zoomed or virtualised dashboard view). */
export function barsBetween(lane: TimelineLane, fromMs: number, toMs: number): TimelineLane {
  return { agent: lane.agent, bars: lane.bars.filter((b) => b.endMs >= fromMs && b.startMs <= toMs) };
}

/**
 * Where a timeline starts: the first bar (an agent's first model call or tool), not the run's first
 * event — preparing the workspace would otherwise squeeze every bar to the right (null: no bars).
 */
export function firstBarMs(lanes: readonly TimelineLane[]): number | null {
  let first: number | null = null;
  for (const lane of lanes)
    for (const bar of lane.bars) if (first === null || bar.startMs < first) first = bar.startMs;
  return first;
}
