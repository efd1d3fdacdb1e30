/** `tasks_ready {limit?}`: the ready tasks of the board and its counts. */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';
import { DEFAULT_READY_LIMIT } from '../tasks.js';
import { formatCounts, formatTask } from './format.js';

export const TASKS_READY_MAX_LIMIT = 200;

const schema = z.object({
  limit: z
    .number()
    .int()
    .min(1)
    .max(TASKS_READY_MAX_LIMIT)
    .optional()
    .describe(`Most tasks to list (default ${DEFAULT_READY_LIMIT}).`),
});

export function createTasksReadyTool(coord: Coordination, runId: string, agent: string): Tool {
  return defineTool({
    name: 'tasks_ready',
    description:
      'Show the task board: tasks ready for you (predecessors done, nobody holds them), in board order, ' +
      'and how many are blocked, claimed by others and done. Take one with claim_next.',
    schema,
    mutates: false,
    async run(args) {
      const ready = await coord.tasks.ready(runId, agent, args.limit ?? DEFAULT_READY_LIMIT);
      if (!ready.ok) return fail(ready.error);
      const { tasks, counts } = ready.value;
      if (counts.total === 0) return ok('The task board is empty.');
      const lines = [formatCounts(counts)];
      for (const task of tasks) lines.push(formatTask(task));
      if (counts.ready > tasks.length) lines.push(`${counts.ready - tasks.length} more ready.`);
      return ok(lines.join('\n'));
    },
  });
}
