/** `tasks_add {tasks}`: put known pieces of the goal on the run's task board. */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';
import { MAX_TASKS_PER_ADD, MAX_TITLE_CHARS } from '../task-input.js';

const LISTED = 20;

const schema = z.object({
  tasks: z
    .array(
      z.object({
        title: z.string().describe(`What to do, at most ${MAX_TITLE_CHARS} characters.`),
        scope: z
          .string()
          .optional()
          .describe('The claim scope the work needs: a folder (src/parser/) or file; default task:<id>.'),
        detail: z.string().optional().describe('Anything the taker needs: approach, files, acceptance.'),
        key: z
          .string()
          .optional()
          .describe('Dedupe key (default: the scope, else the title); adding an existing key is a no-op.'),
        after: z
          .array(z.union([z.number().int(), z.string()]))
          .optional()
          .describe('Predecessors: ids or keys of tasks added earlier (or earlier in this list).'),
      }),
    )
    .max(MAX_TASKS_PER_ADD)
    .describe(`Up to ${MAX_TASKS_PER_ADD} tasks, predecessors before the tasks that need them.`),
});

export function createTasksAddTool(coord: Coordination, runId: string, agent: string): Tool {
  return defineTool({
    name: 'tasks_add',
    description:
      'Add tasks to the shared task board. A task is ready when every predecessor (`after`) is done; ' +
      'peers take ready tasks with claim_next. A task is done when its claim is released with an outcome ' +
      'starting with "done" or "landed". Tasks whose key already exists are reported, not added again.',
    schema,
    mutates: false,
    async run(args) {
      const added = await coord.tasks.add(runId, agent, args.tasks);
      if (!added.ok) return fail(added.error);
      coord.board.bump();
      const fresh = added.value.filter((t) => !t.existing);
      const existing = added.value.filter((t) => t.existing);
      const lines = [`Added ${fresh.length} task${fresh.length === 1 ? '' : 's'}.`];
      for (const t of fresh.slice(0, LISTED)) lines.push(`#${t.id} ${t.title}`);
      if (fresh.length > LISTED)
        lines.push(`… and ${fresh.length - LISTED} more (#${fresh.at(-1)?.id} last).`);
      if (existing.length > 0) {
        lines.push(`${existing.length} already on the board (same key), not added again:`);
        for (const t of existing.slice(0, LISTED)) lines.push(`#${t.id} (key ${t.key})`);
        if (existing.length > LISTED) lines.push(`… and ${existing.length - LISTED} more.`);
      }
      return ok(lines.join('\n'));
    },
  });
}
