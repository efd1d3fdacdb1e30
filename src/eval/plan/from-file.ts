/**
 * A task graph from a task list written before any run (`colony plan --tasks FILE`), so a plan can be
 * made before money is spent. The file: `{ "v": 1, "tasks": [{ "id", "estimateMs", "after"?,
 * "files"?, "steps"?, "costUsd"? }] }`. `after` names tasks of the same file; `files` the paths the
 * task will change (overlapping tasks never run together); `costUsd` per task (the plan's cost is
 * their sum when every task has one). Problems come back as one message naming the task and field.
 */
import { z } from 'zod';
import { topologicalOrder } from './graph-math.js';
import type { PlanTask, TaskGraph } from './task-graph.js';

export const TASK_FILE_VERSION = 1;

const fileTaskSchema = z.strictObject({
  id: z.string().min(1),
  estimateMs: z.number().nonnegative(),
  after: z.array(z.string().min(1)).default([]),
  files: z.array(z.string().min(1)).default([]),
  steps: z.number().int().nonnegative().default(0),
  costUsd: z.number().nonnegative().optional(),
});

const taskFileSchema = z.strictObject({
  v: z.literal(TASK_FILE_VERSION),
  tasks: z.array(fileTaskSchema).min(1),
});

export type TaskFileResult = { ok: true; graph: TaskGraph } | { ok: false; error: string };

export function parseTaskFile(text: string, name: string): TaskFileResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `${name} is not JSON: ${(err as Error).message}` };
  }
  const parsed = taskFileSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || 'file'}: ${i.message}`)
      .join('; ');
    return { ok: false, error: `${name} is not a task file (v ${TASK_FILE_VERSION}): ${issues}` };
  }
  const { tasks: entries } = parsed.data;
  const ids = new Set<string>();
  for (const t of entries) {
    if (ids.has(t.id)) return { ok: false, error: `${name}: task id ${t.id} appears twice` };
    ids.add(t.id);
  }
  for (const t of entries)
    for (const dep of t.after)
      if (!ids.has(dep))
        return { ok: false, error: `${name}: task ${t.id} is after ${dep}, which is not a task` };
  const tasks: PlanTask[] = entries.map((t) => ({
    id: t.id,
    agent: '',
    durationMs: t.estimateMs,
    steps: t.steps,
    deps: t.after,
    files: t.files,
  }));
  try {
    topologicalOrder(tasks);
  } catch (err) {
    return { ok: false, error: `${name}: ${(err as Error).message}` };
  }
  const costs = entries.map((t) => t.costUsd);
  const costUsd = costs.every((c) => c !== undefined)
    ? costs.reduce<number>((s, c) => s + (c ?? 0), 0)
    : null;
  return {
    ok: true,
    graph: {
      runId: name,
      source: 'file',
      tasks,
      goal: null,
      measured: { wallClockMs: null, costUsd, agents: 0, teamSize: 1, activeMs: null },
    },
  };
}
