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
import { runWorkflow, type WorkflowHost } from '../../workflow/index.js';

/** The result the lead reads is cut here (it is also logged whole as workflow.finished). */
export const MAX_RESULT_CHARS = 20_000;
export const DEFAULT_MAX_MAP_ITEMS = 1_000;

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
  maxMapItems?: number;
  /** Retry back-off base in ms (tests shorten it). */
  retryBaseMs?: number;
}

export function createRunWorkflowTool(options: RunWorkflowOptions): Tool {
  return defineTool({
    name: 'run_workflow',
    description: `Run a workflow program you write in TypeScript: it starts agents in stages and merges their results; you get its return value. It is type-checked first: on errors nothing runs and you get them (line:col) to fix.\n${RUN_WORKFLOW_API}`,
    schema: z.object({
      program: z
        .string()
        .min(1)
        .describe('TypeScript: the body of async function program(w: Workflow); return the result'),
    }),
    // Not `mutates`: every step logs step.started (committing this lead response first) before any effect.
    mutates: false,
    run: (input, context) =>
      runLeadProgram(options, input.program, `wf${context.step ?? 0}-${segment(context.callId ?? 'call')}`),
  });
}

/** Checks and runs one program under its own id (its steps' ids start with it). */
export async function runLeadProgram(
  options: RunWorkflowOptions,
  source: string,
  program: string,
): Promise<ToolResult> {
  const checked = await checkProgram(source);
  if (!checked.ok) {
    const problem = checked.error;
    const head =
      problem.kind === 'errors' && problem.forbidden
        ? 'run_workflow refused: the program uses what a workflow program may not (nothing ran):'
        : problem.kind === 'errors'
          ? 'run_workflow: the program does not type-check (nothing ran); fix it and call run_workflow again:'
          : 'run_workflow: cannot check the program:';
    return { isError: true, content: `${head}\n${renderProblems(problem)}` };
  }
  const outcome = await runWorkflow(evaluatorProgram(checked.value.js), options.host, {
    program,
    maxMapItems: options.maxMapItems ?? DEFAULT_MAX_MAP_ITEMS,
    ...(options.retryBaseMs !== undefined ? { retryBaseMs: options.retryBaseMs } : {}),
  });
  if (!outcome.ok)
    return {
      isError: true,
      content: `[workflow ${program}: ${outcome.aborted ? 'stopped' : 'failed'}]\n${outcome.error}`,
    };
  const json = JSON.stringify(outcome.value, null, 2) ?? 'null';
  const shown =
    json.length > MAX_RESULT_CHARS
      ? `${json.slice(0, MAX_RESULT_CHARS)}\n… (${json.length - MAX_RESULT_CHARS} more characters)`
      : json;
  return { isError: false, content: `[workflow ${program}: done]\n${shown}` };
}
