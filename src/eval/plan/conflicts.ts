/**
 * The conflict relation: two tasks whose changed files overlap cannot run at the same time (their
 * merges would conflict or one would have to redo its work on the other's result). Tasks on one
 * dependency chain never overlap anyway; the relation is symmetric.
 */
import type { PlanTask } from './task-graph.js';

export type Conflicts = ReadonlyMap<string, ReadonlySet<string>>;

export function fileConflicts(tasks: readonly PlanTask[]): Map<string, Set<string>> {
  const byFile = new Map<string, string[]>();
  for (const task of tasks)
    for (const file of new Set(task.files)) byFile.set(file, [...(byFile.get(file) ?? []), task.id]);
  const conflicts = new Map<string, Set<string>>();
  for (const ids of byFile.values())
    for (const a of ids)
      for (const b of ids) {
        if (a === b) continue;
        const set = conflicts.get(a) ?? new Set<string>();
        set.add(b);
        conflicts.set(a, set);
      }
  return conflicts;
}

export function conflictPairs(conflicts: Conflicts): number {
  let count = 0;
  for (const set of conflicts.values()) count += set.size;
  return count / 2;
}
