/**
 * run_workflow (issue 32): the lead writes the plan as a program against the `w` API and Colony runs
 * it. The source is type-checked (workflow/authored/check.ts; the problems go back as the tool result
 * so the lead can repair), run in the evaluator (workflow/authored/evaluate.ts: no clock, randomness,
 * files, network or process) by the workflow engine over the run's own workflow host
 * (topology/workflow/host.ts: the one agent session, the integration queue, the run's budget and
 * scheduler), durable per step: the program's ids start with `wf<lead step>-<call id>`, the same on
 * a resumed lead turn, so a re-run call returns every logged step instead of running it again. The
 * program's result comes back as JSON.
 */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import type { Tool, ToolResult } from '../../tool/types.js';
import { checkProgram, renderProblems } from '../../workflow/authored/check.js';
import { evaluatorProgram } from '../../workflow/authored/evaluate.js';
import { segment } from '../../workflow/call-path.js';
import type { WorkflowOutcome } from '../../workflow/engine.js';
import { runWorkflow, type WorkflowHost } from '../../workflow/index.js';
import type { LeadPrograms } from './background-programs.js';

/** The result the lead reads is cut here (it is also logged whole as workflow.finished). */
export const MAX_RESULT_CHARS = 20_000;
export const DEFAULT_MAX_MAP_ITEMS = 1_000;
/** Open workflow runs per lead (REFERENCE: 10 open runs); background-programs.ts enforces it. */
export const DEFAULT_MAX_OPEN_WORKFLOWS = 10;

export const RUN_WORKFLOW_API = [
  'The program is the body of `async function program(w: Workflow)`: `w` is in scope, `return` gives the',
  'result (JSON). No imports; no clock, random numbers, files, network, process or timers (resume replays',
  'the program, so it must make the same calls from the same results). The `w` API:',
  '- w.agent(profile | {profile, name?, instructions?, maxSteps?}).run(task, {retries?, timeout?, priority?, key?, budget?})',
  '  → Promise<{ok: true, value: string, text, step, attempts} | {ok: false, error: {kind, message}, step, attempts}>:',
  '  one agent step (explore/reviewer read hub main; coder writes and lands through the integration queue).',
  '- w.map(items, (item, i) => Promise, {concurrency?}), w.parallel(() => Promise, ...): results in order.',
  '- w.stage(name, () => Promise); w.dag({name: {after?: [names], run: (inputs) => Promise}}).',
  "- w.sync('build' | 'integration' | 'review', command) → {passed, exitCode, output} on hub main.",
  '- w.dedupe(items, (item) => key); w.args. An agent answers text: ask for JSON and JSON.parse it.',
].join('\n');

export interface RunWorkflowOptions {
  host: WorkflowHost;
  /**
   * The lead's open programs (background-programs.ts): background runs and the limit on open runs.
   * Without it `background` is refused and nothing is counted.
   */
  programs?: LeadPrograms;
  maxMapItems?: number;
  /** Retry back-off base in ms (tests shorten it). */
  retryBaseMs?: number;
}

export function createRunWorkflowTool(options: RunWorkflowOptions): Tool {
  return defineTool({
    name: 'run_workflow',
    description: `Run a workflow program you write in TypeScript: it starts agents in stages and merges their results; you get its return value (with background: true, a handle at once: follow it with workflow_status; a direct message tells you when it ends). It is type-checked first: on errors nothing runs and you get them (line:col) to fix.\n${RUN_WORKFLOW_API}`,
    schema: z.object({
      program: z
        .string()
        .min(1)
        .describe('TypeScript: the body of async function program(w: Workflow); return the result'),
      background: z
        .boolean()
        .optional()
        .describe(
          'true: return a handle {id, status} at once and run the program in the background; workflow_status {id} shows it, and a direct message tells you when it ends',
        ),
    }),
    // Not `mutates`: every step logs step.started (committing this lead response first) before any effect.
    mutates: false,
    run: (input, context) => {
      const id = programId(context.step ?? 0, context.callId ?? 'call');
      const programs = options.programs;
      if (!programs) {
        if (input.background) return Promise.resolve(NO_BACKGROUND);
        return runLeadProgram(options, input.program, id);
      }
      return input.background
        ? programs.startBackground(id, input.program)
        : programs.runForeground(id, () => runLeadProgram(options, input.program, id));
    },
  });
}

/** Checks and runs one program under its own id (its steps' ids start with it). */
export async function runLeadProgram(
  options: RunWorkflowOptions,
  source: string,
  program: string,
): Promise<ToolResult> {
  const checked = await checkLeadProgram(source);
  if (!checked.ok) return checked.result;
  const outcome = await runCheckedProgram(options, checked.js, program);
  return {
    isError: !outcome.ok,
    content: `[workflow ${program}: ${outcomeStatus(outcome)}]\n${outcomeBody(outcome)}`,
  };
}

/** The id of the program a run_workflow call runs: its steps' ids start with it. */
export function programId(step: number, callId: string): string {
  return `wf${step}-${segment(callId)}`;
}

/** Type-checks a program: its JavaScript, or the tool result that says why nothing ran. */
export async function checkLeadProgram(
  source: string,
): Promise<{ ok: true; js: string } | { ok: false; result: ToolResult }> {
  const checked = await checkProgram(source);
  if (checked.ok) return { ok: true, js: checked.value.js };
  const problem = checked.error;
  const head =
    problem.kind === 'errors' && problem.forbidden
      ? 'run_workflow refused: the program uses what a workflow program may not (nothing ran):'
      : problem.kind === 'errors'
        ? 'run_workflow: the program does not type-check (nothing ran); fix it and call run_workflow again:'
        : 'run_workflow: cannot check the program:';
  return { ok: false, result: { isError: true, content: `${head}\n${renderProblems(problem)}` } };
}

/** Runs a checked program under its id on the run's workflow engine. */
export function runCheckedProgram(
  options: RunWorkflowOptions,
  js: string,
  program: string,
): Promise<WorkflowOutcome> {
  return runWorkflow(evaluatorProgram(js), options.host, {
    program,
    maxMapItems: options.maxMapItems ?? DEFAULT_MAX_MAP_ITEMS,
    ...(options.retryBaseMs !== undefined ? { retryBaseMs: options.retryBaseMs } : {}),
  });
}

export function outcomeStatus(outcome: WorkflowOutcome): 'done' | 'failed' | 'stopped' {
  return outcome.ok ? 'done' : outcome.aborted ? 'stopped' : 'failed';
}

/** A program's result as JSON (cut at `max` characters), or its error. */
export function outcomeBody(outcome: WorkflowOutcome, max = MAX_RESULT_CHARS): string {
  if (!outcome.ok) return outcome.error;
  const json = JSON.stringify(outcome.value, null, 2) ?? 'null';
  return json.length > max ? `${json.slice(0, max)}\n… (${json.length - max} more characters)` : json;
}

const NO_BACKGROUND: ToolResult = {
  isError: true,
  content: 'run_workflow: background runs are not available here; call it without background',
};
