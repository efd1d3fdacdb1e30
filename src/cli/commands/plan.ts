import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { terminalJson, terminalText } from '../../core/terminal-text.js';
import {
  checkEvalDir,
  checkPlan,
  DEFAULT_PLAN_OPTIONS,
  formatCheck,
  formatEvalCheck,
  formatPlan,
  type LoadedGraph,
  loadRunGraph,
  type PlanReport,
  type PlanSettings,
  parseTaskFile,
  planPage,
  planRun,
} from '../../eval/plan/index.js';
import { workflowStageSteps } from '../../view/critical-path.js';
import { isDagPlanMessage } from '../../workflow/critical-path.js';
import { formatProgramPlan, planProgramFile } from '../../workflow/plan-program.js';
import { numberFlag, parseFlags, UsageError } from '../args.js';
import { CliFailure, withStore } from '../store-access.js';
import { parseArgPairs } from './workflow.js';

export const PLAN_HELP = `colony plan RUN [--json] [--html FILE] [--sizes 1,2,3,…] [--seed N] [--samples N]
colony plan --tasks FILE.json [--json] [--html FILE] [--sizes …] [--seed N] [--samples N]
colony plan --check RUN [--from OTHER_RUN] [--json] [--seed N] [--samples N]
colony plan --check-eval DIR [--json] [--seed N] [--samples N]
colony plan --workflow FILE [--arg K=V]... [--from RUN] [--json]

How big a team the work could use (docs/eval.md, "colony plan"): the task graph of a recorded run
(orchestrated: lead turns and assigned tasks; workflow: its steps, stages and w.dag; a peers task
board: its claimed tasks; otherwise one task per agent) or of a task file written before any run
(--tasks: {"v":1,"tasks":[{"id","estimateMs","after":[],"files":[]}]}); work and span, per team size
the Brent bounds, a critical-path-first list schedule (tasks whose files overlap never run together),
Monte-Carlo p10/p50/p90 makespan and cost, and the recommended size. Sizes: every size from 1 up to
the most tasks that can run at once (dense to 32, then doubling), or --sizes. --html writes the
charts as one self-contained page. Read-only.

--check RUN: predicted against measured makespan and cost of a finished run, at its own team size,
from its own task graph or --from another run's (e.g. a solo run of the same goal forecasting a
team); Monte-Carlo samples default to 1000 here. --check-eval DIR: --check over every run of an eval
directory (each run from itself, and each team run from the baseline arm's run of its task), with the
error statistics.

--workflow FILE: the w.dag plans of a workflow program without running it (no agent, no command,
no store unless --from): per DAG its nodes with their weight and rank (the longest chain from the
node), its critical path and CriticalSteps — the order a run starts ready nodes in when agent slots
are scarce (docs/workflows.md, "Critical-path scheduling"). Steps resolve as failures, so a program
that branches on their results may plan fewer DAGs than a run. Weights: 1 per node, or with --from
RUN the steps that run (of the same program) measured per node.`;

const CHECK_SAMPLES = 1000;

/** --workflow FILE: the program's DAG plans, weighed by --from RUN's measured stages when given. */
async function planWorkflowFile(
  file: string,
  args: Record<string, string>,
  from: string | undefined,
  json: boolean,
): Promise<number> {
  const weights =
    from === undefined
      ? undefined
      : await withStore(async (store) => {
          if (!(await store.runs.getRun(from))) throw new UsageError(`plan: no run ${from}`);
          return workflowStageSteps(await store.log.read(from));
        });
  const planned = await planProgramFile(resolve(file), {
    args,
    ...(weights ? { stageWeights: weights } : {}),
  });
  if (!planned.ok) throw new UsageError(`plan: ${planned.error}`);
  // A cycle or an unknown predecessor is the program's error, not a missing step result.
  const stopped = planned.plan.stopped;
  if (stopped !== null && isDagPlanMessage(stopped)) throw new CliFailure(`plan: ${file}: ${stopped}`);
  process.stdout.write(
    `${json ? terminalJson(planned.plan) : terminalText(formatProgramPlan(planned.plan))}\n`,
  );
  return 0;
}

/** --sizes, or undefined: every size up to the task count (planSizes). */
function sizesFlag(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const sizes = value.split(',').map((s) => numberFlag(s.trim(), 'sizes', 'int') ?? 0);
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/** A graph that could not be loaded: no such run is a usage error (2), the others failures (1). */
function loaded(result: LoadedGraph): Extract<LoadedGraph, { ok: true }>['graph'] {
  if (result.ok) return result.graph;
  if (result.reason === 'missing') throw new UsageError(result.error);
  throw new CliFailure(result.error);
}

function print(report: PlanReport, json: boolean, html: string | undefined): void {
  if (html !== undefined) writeFileSync(html, planPage(report));
  process.stdout.write(`${json ? terminalJson(report) : terminalText(formatPlan(report))}\n`);
  if (html !== undefined && !json) process.stdout.write(`chart: ${html}\n`);
}

export async function planCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      json: { type: 'boolean' },
      html: { type: 'string' },
      sizes: { type: 'string' },
      seed: { type: 'string' },
      samples: { type: 'string' },
      tasks: { type: 'string' },
      check: { type: 'string' },
      from: { type: 'string' },
      'check-eval': { type: 'string' },
      workflow: { type: 'string' },
      arg: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    'plan',
  );
  if (values.help) {
    process.stdout.write(`${PLAN_HELP}\n`);
    return 0;
  }
  const sizes = sizesFlag(values.sizes);
  if (sizes?.length === 0) throw new UsageError('plan: --sizes needs at least one team size');
  const options: PlanSettings = {
    ...DEFAULT_PLAN_OPTIONS,
    ...(sizes ? { sizes } : {}),
    seed: numberFlag(values.seed, 'seed', 'int') ?? DEFAULT_PLAN_OPTIONS.seed,
    samples: numberFlag(values.samples, 'samples', 'int') ?? DEFAULT_PLAN_OPTIONS.samples,
  };
  // A check scores one team size, so it can afford more samples (less Monte-Carlo noise in the p50).
  const checkOptions = { ...options, samples: numberFlag(values.samples, 'samples', 'int') ?? CHECK_SAMPLES };
  const modes = [
    positionals.length > 0,
    values.tasks,
    values.check,
    values['check-eval'],
    values.workflow,
  ].filter(Boolean);
  if (modes.length !== 1 || positionals.length > 1)
    throw new UsageError(
      'plan: give one of RUN, --tasks FILE, --check RUN, --check-eval DIR or --workflow FILE (colony plan --help)',
    );
  if (values.from !== undefined && values.check === undefined && values.workflow === undefined)
    throw new UsageError('plan: --from goes with --check RUN or --workflow FILE');
  if (values.arg !== undefined && values.workflow === undefined)
    throw new UsageError('plan: --arg goes with --workflow FILE');
  const json = values.json === true;

  if (values.workflow !== undefined)
    return planWorkflowFile(values.workflow, parseArgPairs(values.arg ?? []), values.from, json);

  if (values.tasks !== undefined) {
    let text: string;
    try {
      text = readFileSync(values.tasks, 'utf8');
    } catch (err) {
      throw new UsageError(`plan: cannot read ${values.tasks}: ${(err as Error).message}`);
    }
    const parsed = parseTaskFile(text, values.tasks);
    if (!parsed.ok) throw new UsageError(`plan: ${parsed.error}`);
    print(planRun(parsed.graph, options), json, values.html);
    return 0;
  }
  return withStore(async (store) => {
    const check = values.check;
    const evalDir = values['check-eval'];
    if (check !== undefined) {
      const run = loaded(await loadRunGraph(store, check, { finished: true, tasks: true }));
      const from =
        values.from === undefined
          ? run
          : loaded(await loadRunGraph(store, values.from, { finished: true, tasks: true }));
      const result = checkPlan(run, from, checkOptions);
      if (!result.ok) throw new CliFailure(result.error);
      process.stdout.write(
        `${json ? terminalJson(result.report) : terminalText(formatCheck(result.report))}\n`,
      );
      return 0;
    }
    if (evalDir !== undefined) {
      const result = await checkEvalDir(store, evalDir, checkOptions);
      if (!result.ok) throw new UsageError(`plan: ${result.error}`);
      process.stdout.write(
        `${json ? terminalJson(result.summary) : terminalText(formatEvalCheck(result.summary))}\n`,
      );
      return 0;
    }
    const runId = positionals[0] ?? '';
    const graph = loaded(await loadRunGraph(store, runId, { finished: false, tasks: false }));
    print(planRun(graph, options), json, values.html);
    return 0;
  });
}
