/**
 * A critical-path-first list schedule on p agents: whenever an agent is free, it takes the ready task
 * (all deps finished) with the largest bottom level that conflicts with no running task (ties: id).
 * Returns the makespan and each task's start. Greedy, so without conflicts it meets Brent's bound.
 */
import type { Conflicts } from './conflicts.js';
import { bottomLevels, type Durations, observedDurations } from './graph-math.js';
import type { PlanTask } from './task-graph.js';

export interface Schedule {
  makespanMs: number;
  starts: Map<string, { agent: number; startMs: number }>;
}

export function listSchedule(
  tasks: readonly PlanTask[],
  p: number,
  options: { durations?: Durations; conflicts?: Conflicts } = {},
): Schedule {
  const durations = options.durations ?? observedDurations(tasks);
  const conflicts = options.conflicts ?? new Map<string, ReadonlySet<string>>();
  const level = bottomLevels(tasks, durations);
  const known = new Set(tasks.map((t) => t.id));
  const waiting = [...tasks].sort(
    (a, b) => (level.get(b.id) ?? 0) - (level.get(a.id) ?? 0) || a.id.localeCompare(b.id),
  );
  const finished = new Set<string>();
  const running: Array<{ id: string; agent: number; endMs: number }> = [];
  const starts = new Map<string, { agent: number; startMs: number }>();
  let now = 0;
  let makespanMs = 0;
  while (waiting.length > 0 || running.length > 0) {
    const busy = new Set(running.map((r) => r.agent));
    for (let i = 0; i < waiting.length && busy.size < p; ) {
      const task = waiting[i] as PlanTask;
      const ready = task.deps.every((d) => finished.has(d) || !known.has(d));
      const blocked = running.some((r) => conflicts.get(task.id)?.has(r.id));
      if (!ready || blocked) {
        i++;
        continue;
      }
      let agent = 0;
      while (busy.has(agent)) agent++;
      busy.add(agent);
      const endMs = now + (durations.get(task.id) ?? 0);
      running.push({ id: task.id, agent, endMs });
      starts.set(task.id, { agent, startMs: now });
      waiting.splice(i, 1);
    }
    if (running.length === 0) throw new Error('list schedule: no task can start (a dependency cycle?)');
    now = Math.min(...running.map((r) => r.endMs));
    for (let i = running.length - 1; i >= 0; i--) {
      const r = running[i];
      if (r && r.endMs <= now) {
        finished.add(r.id);
        running.splice(i, 1);
      }
    }
    makespanMs = Math.max(makespanMs, now);
  }
  return { makespanMs, starts };
}
