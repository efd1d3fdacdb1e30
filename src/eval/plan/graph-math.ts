/**
 * Work and span of a task graph: work = Σ durations (the time one agent needs), span = the longest
 * dependency chain (no team finishes sooner). Durations are given apart so Monte-Carlo can resample.
 */
import type { PlanTask } from './task-graph.js';

export type Durations = ReadonlyMap<string, number>;

export function observedDurations(tasks: readonly PlanTask[]): Map<string, number> {
  return new Map(tasks.map((t) => [t.id, t.durationMs]));
}

/** Tasks in an order where every task comes after its deps (unknown deps are ignored; a cycle throws). */
export function topologicalOrder(tasks: readonly PlanTask[]): PlanTask[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const order: PlanTask[] = [];
  const visit = (task: PlanTask): void => {
    if (done.has(task.id)) return;
    if (visiting.has(task.id)) throw new Error(`task graph has a cycle through ${task.id}`);
    visiting.add(task.id);
    for (const dep of task.deps) {
      const before = byId.get(dep);
      if (before) visit(before);
    }
    visiting.delete(task.id);
    done.add(task.id);
    order.push(task);
  };
  for (const task of tasks) visit(task);
  return order;
}

export function work(tasks: readonly PlanTask[], durations: Durations = observedDurations(tasks)): number {
  return tasks.reduce((sum, t) => sum + (durations.get(t.id) ?? 0), 0);
}

/** Bottom level of each task: its duration plus the longest chain of tasks that depend on it. */
export function bottomLevels(
  tasks: readonly PlanTask[],
  durations: Durations = observedDurations(tasks),
): Map<string, number> {
  const order = topologicalOrder(tasks);
  const dependents = new Map<string, string[]>();
  for (const t of tasks)
    for (const dep of t.deps) dependents.set(dep, [...(dependents.get(dep) ?? []), t.id]);
  const level = new Map<string, number>();
  for (const task of [...order].reverse()) {
    const after = Math.max(0, ...(dependents.get(task.id) ?? []).map((id) => level.get(id) ?? 0));
    level.set(task.id, (durations.get(task.id) ?? 0) + after);
  }
  return level;
}

export function span(tasks: readonly PlanTask[], durations: Durations = observedDurations(tasks)): number {
  return Math.max(0, ...bottomLevels(tasks, durations).values());
}

/** The ids on one longest chain, first to last. */
export function criticalChain(
  tasks: readonly PlanTask[],
  durations: Durations = observedDurations(tasks),
): string[] {
  const level = bottomLevels(tasks, durations);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const dependents = new Map<string, string[]>();
  for (const t of tasks)
    for (const dep of t.deps) if (byId.has(dep)) dependents.set(dep, [...(dependents.get(dep) ?? []), t.id]);
  const pickMax = (ids: readonly string[]): string | undefined =>
    [...ids].sort((a, b) => (level.get(b) ?? 0) - (level.get(a) ?? 0) || a.localeCompare(b))[0];
  const roots = tasks.filter((t) => t.deps.every((d) => !byId.has(d))).map((t) => t.id);
  const chain: string[] = [];
  let next = pickMax(roots);
  while (next !== undefined) {
    chain.push(next);
    next = pickMax(dependents.get(next) ?? []);
  }
  return chain;
}

/** Brent's bounds for p agents (greedy schedules without conflicts): max(W/p, S) ≤ T_p ≤ W/p + S. */
export function brentBounds(workMs: number, spanMs: number, p: number): { lower: number; upper: number } {
  return { lower: Math.max(workMs / p, spanMs), upper: workMs / p + spanMs };
}
