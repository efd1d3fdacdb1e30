/** The lead's two extra tools (REFERENCE §1): create_subagent and assign_task. */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import type { Tool } from '../../tool/types.js';
import type { Team } from './team.js';

export function createSubagentTool(team: Team): Tool {
  return defineTool({
    name: 'create_subagent',
    description:
      'Define a subagent: a named role with its own system prompt and a profile (explore, plan, reviewer: ' +
      'read-only; coder, integrator: write in their own worktree and land through the integration queue; ' +
      'or a profile from config). It starts when you assign it a task and keeps its memory across tasks.',
    schema: z.object({
      name: z.string().describe('lower-case name, e.g. "coder-auth"'),
      system_prompt: z.string().min(1).describe("the subagent's role and standing instructions"),
      profile: z.string().optional().describe('default: coder'),
    }),
    mutates: false,
    run: (input) => team.createSubagent(input),
  });
}

export function createAssignTaskTool(team: Team): Tool {
  const tool = defineTool({
    name: 'assign_task',
    description:
      'Give a subagent a task and wait for its result (only its final answer comes back). Several ' +
      'assign_task calls in one response run in parallel across different subagents; tasks for the ' +
      'same subagent run one after another in its context.',
    schema: z.object({
      agent: z.string().describe('the subagent name'),
      prompt: z
        .string()
        .min(1)
        .describe('the task: inputs, files it may touch, output format, acceptance check'),
    }),
    // Not `mutates`: the loop's settle-before-mutation would reorder parallel calls; the team flushes
    // the log itself before a task has any effect.
    mutates: false,
    run: (input, context) =>
      team.assign(input, { callId: context.callId ?? 'call', step: context.step ?? 0 }),
  });
  return { ...tool, parallel: true };
}
