/** workflow_status (issue 32): the lead asks about a workflow run it started in the background. */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import type { Tool } from '../../tool/types.js';
import { DEFAULT_STATUS_WAIT_MS, type LeadPrograms } from './background-programs.js';

export function createWorkflowStatusTool(programs: LeadPrograms, options: { maxWaitMs?: number } = {}): Tool {
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_STATUS_WAIT_MS;
  return defineTool({
    name: 'workflow_status',
    description:
      'The status of a workflow run you started with run_workflow {background: true}: running, done, failed or ' +
      'stopped, each step so far, and the result once it ended. wait: true waits for its end first ' +
      `(at most ${Math.round(maxWaitMs / 1000)} s). You also get a direct message when it ends.`,
    schema: z.object({
      id: z.string().min(1).describe('the id run_workflow returned, e.g. "wf3-call_1"'),
      wait: z.boolean().optional().describe('wait for the run to end (bounded) before answering'),
    }),
    mutates: false,
    run: (input) => programs.status(input.id, input.wait ? maxWaitMs : 0),
  });
}
