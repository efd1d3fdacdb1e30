/** `release {scope, outcome}`: give up one of your claims. */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';

const schema = z.object({
  scope: z.string().describe('The scope you claimed (same path or task id).'),
  outcome: z.string().describe('What came of it, e.g. "done, landed abc123" or "gave up: see FAIL #12".'),
});

export function createReleaseTool(coord: Coordination, runId: string, agent: string): Tool {
  return defineTool({
    name: 'release',
    description:
      'Release one of your claims so others may take the scope; say what came of it. An outcome starting ' +
      'with "done" or "landed" marks the board task on this scope done; any other outcome leaves it open.',
    schema,
    mutates: false,
    async run(args) {
      const released = await coord.claims.release({ runId, agent, scope: args.scope, outcome: args.outcome });
      if (!released.ok) return fail(released.error);
      coord.board.bump();
      return ok(`Released ${released.value.scope}.`);
    },
  });
}
