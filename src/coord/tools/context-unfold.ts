/** `context_unfold {id}`: one shared-context entry in full, detail included. */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';
import { formatEntry } from './format.js';

const schema = z.object({
  id: z.number().int().min(1).describe('The entry id (the number after # in context_read).'),
});

export function createContextUnfoldTool(coord: Coordination, runId: string): Tool {
  return defineTool({
    name: 'context_unfold',
    description:
      'Show one shared-context entry in full: summary, scope and detail (evidence, output, commit).',
    schema,
    mutates: false,
    async run(args) {
      const entry = await coord.context.unfold(runId, args.id);
      if (!entry.ok) return fail(entry.error);
      return ok(formatEntry(entry.value));
    },
  });
}
