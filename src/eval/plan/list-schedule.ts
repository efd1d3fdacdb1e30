/**
 * A critical-path-first list schedule on p agents: whenever an agent is free, it takes the ready task
 * (all deps finished) with the largest bottom level that conflicts with no running task (ties: id),
 * on the lowest-numbered free agent. Returns the makespan, each task's start and the most agents busy
 * at once. Greedy, so without conflicts it meets Brent's bound.
 *
 * Event-driven with heaps, since Monte-Carlo runs it per sample and team size on graphs of 1,000
 * tasks: the startable tasks by rank, the running ones by end, the free agents by number; each task
 * counts its unfinished deps and the running tasks it conflicts with, so no event rescans the rest.
 */
import type { Conflicts } from './conflicts.js';
import { bottomLevels, type Durations, observedDurations } from './graph-math.js';
import { NumberHeap } from './number-heap.js';
import type { PlanTask } from './task-graph.js';

export interface Schedule {
  makespanMs: number;
  starts: Map<string, { agent: number; startMs: number }>;
  /**
   * The most tasks running at once. Below p, p never bound a choice, so every larger team gets
   * this same schedule: more agents than this have nothing to do.
   */
  peakAgents: number;
}

export interface ScheduleOptions {
  durations?: Durations;
  conflicts?: Conflicts;
}

export function listSchedule(tasks: readonly PlanTask[], p: number, options: ScheduleOptions = {}): Schedule {
  return listScheduler(tasks, options)(p);
}

/**
 * The list schedule of one set of durations for any team size: the ranks, deps and conflicts are
 * worked out once (Monte-Carlo schedules each sample on every size).
 */
export function listScheduler(
  tasks: readonly PlanTask[],
  options: ScheduleOptions = {},
): (p: number) => Schedule {
  const durations = options.durations ?? observedDurations(tasks);
  const conflicts = options.conflicts ?? new Map<string, ReadonlySet<string>>();
  const level = bottomLevels(tasks, durations);
  // Rank 0 is the first choice: largest bottom level, then id.
  const order = [...tasks].sort(
    (a, b) => (level.get(b.id) ?? 0) - (level.get(a.id) ?? 0) || a.id.localeCompare(b.id),
  );
  const n = order.length;
  const rankOf = new Map(order.map((t, i) => [t.id, i]));
  const unfinishedDeps = new Int32Array(n);
  const dependents: number[][] = order.map(() => []);
  const overlaps: number[][] = order.map(() => []);
  order.forEach((t, r) => {
    // A dep that is not a task of the graph is taken as done.
    for (const dep of new Set(t.deps)) {
      const d = rankOf.get(dep);
      if (d === undefined) continue;
      unfinishedDeps[r] = (unfinishedDeps[r] ?? 0) + 1;
      dependents[d]?.push(r);
    }
    for (const id of conflicts.get(t.id) ?? []) {
      const o = rankOf.get(id);
      if (o !== undefined) overlaps[r]?.push(o);
    }
  });
  const durationOf = order.map((t) => durations.get(t.id) ?? 0);
  const graph: RankedGraph = { order, durationOf, deps: unfinishedDeps, dependents, overlaps };
  return (p) => schedule(graph, p);
}

/** The graph by rank (index in `order`): durations, dep counts, dependents and conflicting tasks. */
interface RankedGraph {
  order: readonly PlanTask[];
  durationOf: readonly number[];
  deps: Int32Array;
  dependents: readonly number[][];
  overlaps: readonly number[][];
}

function schedule(graph: RankedGraph, p: number): Schedule {
  const { order, durationOf, dependents, overlaps } = graph;
  const n = order.length;
  const unfinishedDeps = graph.deps.slice();
  const blockers = new Int32Array(n);
  const started = new Uint8Array(n);
  const queued = new Uint8Array(n);
  const agentOf = new Int32Array(n);
  const endOf = new Float64Array(n);
  const startable = new NumberHeap();
  // A task is queued at most once; one found blocked when taken is queued again when freed.
  const offer = (r: number) => {
    if (started[r] || queued[r] || unfinishedDeps[r] !== 0 || blockers[r] !== 0) return;
    queued[r] = 1;
    startable.push(r);
  };
  for (let r = 0; r < n; r++) offer(r);
  const free = new NumberHeap();
  for (let a = 0; a < Math.min(p, n); a++) free.push(a);
  const running = new NumberHeap((a, b) => (endOf[a] ?? 0) < (endOf[b] ?? 0));
  const starts = new Map<string, { agent: number; startMs: number }>();
  let startedCount = 0;
  let now = 0;
  let makespanMs = 0;
  let peakAgents = 0;
  while (startedCount < n || running.size > 0) {
    while (free.size > 0 && startable.size > 0) {
      const r = startable.pop() as number;
      queued[r] = 0;
      if (blockers[r] !== 0) continue; // blocked since it was queued
      const agent = free.pop() as number;
      started[r] = 1;
      startedCount++;
      agentOf[r] = agent;
      endOf[r] = now + (durationOf[r] ?? 0);
      running.push(r);
      starts.set((order[r] as PlanTask).id, { agent, startMs: now });
      for (const o of overlaps[r] ?? []) blockers[o] = (blockers[o] ?? 0) + 1;
    }
    if (running.size === 0) throw new Error('list schedule: no task can start (a dependency cycle?)');
    peakAgents = Math.max(peakAgents, running.size);
    now = endOf[running.peek() as number] ?? now;
    while (running.size > 0 && (endOf[running.peek() as number] ?? 0) <= now) {
      const done = running.pop() as number;
      free.push(agentOf[done] ?? 0);
      for (const o of overlaps[done] ?? []) {
        blockers[o] = (blockers[o] ?? 0) - 1;
        offer(o);
      }
      for (const d of dependents[done] ?? []) {
        unfinishedDeps[d] = (unfinishedDeps[d] ?? 0) - 1;
        offer(d);
      }
    }
    makespanMs = Math.max(makespanMs, now);
  }
  return { makespanMs, starts, peakAgents };
}
