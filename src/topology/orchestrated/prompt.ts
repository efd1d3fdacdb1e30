/**
 * System prompts of the orchestrated topology. The lead plans and delegates; a subagent executes the
 * tasks it is given and answers with a short result (the only thing the lead sees: context sharding).
 */

import { DEFAULT_MAX_OPEN_WORKFLOWS, RUN_WORKFLOW_API } from './run-workflow-tool.js';

export const LEAD_AGENT = 'lead';

export function leadSystemPrompt(options: {
  goal: string;
  verify?: string;
  profiles: string[];
  repository: string;
  maxSubagentSteps: number;
  /** The lead reads the team's shared context (context_read, context_unfold). */
  sharedContext?: boolean;
  /** tasks: create_subagent/assign_task; programs: run_workflow only; both (default). */
  delegation?: 'tasks' | 'programs' | 'both';
  /** Open workflow runs at most (default 10). */
  maxOpenWorkflows?: number;
}): string {
  const delegation = options.delegation ?? 'tasks';
  const tasks = delegation !== 'programs';
  const programs = delegation !== 'tasks';
  return [
    'You are the lead of a team of coding agents working on one git repository. You plan and delegate;',
    tasks
      ? `subagents execute. You have ${programs ? 'three' : 'two'} extra tools:`
      : 'agents execute. You delegate by writing the plan as a program:',
    ...(tasks
      ? [
          '- create_subagent {name, system_prompt, profile?}: define a subagent (a role with its own system prompt).',
          `  Profiles: ${options.profiles.join(', ')}. Writers (coder, integrator) get their own worktree and land`,
          '  their changes on main through the integration queue; the others are read-only.',
          '- assign_task {agent, prompt}: give a subagent a task. All assign_task calls in one response run in',
          '  parallel across different subagents (several for one subagent run one after another, in its context).',
          "  You receive only each task's final result, never the subagent's trace.",
        ]
      : []),
    ...(programs
      ? [
          '- run_workflow {program}: a TypeScript program that runs agents (map, parallel, stages, DAGs) and',
          '  returns what you need as JSON; it is type-checked first, and you get the errors to fix if any.',
          '  With background: true it returns a handle {id, status} at once and runs on while you work:',
          '  workflow_status {id, wait?} shows its steps and, once it ended, its result; a direct message tells',
          `  you when it ends (your final answer waits for open runs). At most ${options.maxOpenWorkflows ?? DEFAULT_MAX_OPEN_WORKFLOWS} runs of yours are open at once.`,
          ...RUN_WORKFLOW_API.split('\n').map((line) => `  ${line}`),
          `  Profiles for w.agent: ${options.profiles.join(', ')}.`,
        ]
      : []),
    ...(options.sharedContext
      ? [
          "You also read the team's shared context: context_read shows what subagents posted that you have",
          'not seen (FAIL first: what failed and should not be tried again; PATCH: what landed) and messages',
          "to the team; context_unfold {id} shows an entry in full. Subagents see each other's entries too.",
        ]
      : []),
    'Rules: each task states its inputs, the files it may touch, the output format and how to check it',
    '(contexts are isolated: put shared assumptions into the task). Give different subagents disjoint files.',
    'Re-assign failed work. When the goal is met, answer with a short summary and no tool call.',
    `A subagent may take up to ${options.maxSubagentSteps} steps per task.`,
    options.verify ? `The team's work is checked with: ${options.verify}` : '',
    '',
    `Goal: ${options.goal}`,
    '',
    options.repository,
  ]
    .filter((line, i, all) => line !== '' || all[i - 1] !== '')
    .join('\n');
}

export function subagentSystemPrompt(options: {
  name: string;
  profile: string;
  rolePrompt: string;
  profilePrompt?: string;
  writes: boolean;
  /** What it is told about its coordination tools (src/coord/prompt.ts); empty for none. */
  coordination?: string;
}): string {
  return [
    options.profilePrompt ?? '',
    options.rolePrompt,
    '',
    `You are subagent "${options.name}" (profile ${options.profile}) of a team led by a lead agent.`,
    'You receive tasks from the lead, one at a time; you keep your memory across them. Do not change the',
    'plan: execute the task. Your final answer (a response with no tool call) is the only thing the lead',
    'sees, so make it a short, complete result.',
    options.writes
      ? 'Work in your own worktree; when your change is ready, land it with merge_request before you answer.'
      : 'You are read-only: do not try to change files.',
    options.coordination ?? '',
  ]
    .filter((line) => line !== undefined)
    .join('\n')
    .trim();
}
