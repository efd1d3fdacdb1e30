import { basename, resolve } from 'node:path';
import { terminalJson } from '../../core/terminal-text.js';
import { numberFlag, onePositional, parseFlags, UsageError } from '../args.js';
import { type ColonyConfig, loadConfig } from '../config.js';
import { runNewInForeground } from '../foreground-run.js';
import { type PreparedRun, prepareRun } from '../new-run.js';
import { SANDBOX_HELP, SANDBOX_OPTIONS, sandboxFlags } from '../sandbox-flags.js';

export const WORKFLOW_HELP = `colony workflow FILE --repo PATH [options]

Runs a workflow program: a TypeScript (.ts, transpiled; needs the typescript package) or JavaScript
(.js/.mjs) file whose default export is an async function of \`w\` that runs agents in stages and merges
their results (see docs/workflows.md). Read-only agents (explore, reviewer) read the base commit;
writers (coder) work in their own worktrees and land through the integration queue. Every agent run
is a durable step: after a crash, \`colony resume RUN\` re-runs the program and completed steps return
their logged results without calling the model. Hub main is fetched as colony/<run-id> at the end.

  --repo PATH          the git repository (default: current folder)
  --arg K=V            a program argument (w.args.K); repeatable
  --goal TEXT          a one-line description for colony runs (default: "workflow FILE")
  --model ID           a known model id, or <protocol>:<model-name> (see colony models)
  --base-url URL       API base URL (e.g. a local OpenAI-compatible server)
  --base REF           start from this commit (default HEAD)
  --setup CMD          run in every new writer worktree and before sync points
  --verify CMD         final check on hub main; the run fails if it fails (also the per-merge
                       check unless --merge-verify is given)
  --merge-verify CMD   what the integration queue runs for each writer's merge request
  --approve-merges     every writer's merge request that passes the check waits for your approval
                       (colony approve / colony reject, the dashboard); the step waits for it
  --concurrency K      most agents working at once (default 64)
  --max-steps N        step cap per agent attempt (default 100)
  --budget-usd X       hard money limit of the run
  --budget-tokens N    hard token limit of the run
${SANDBOX_HELP}
  --config FILE        config file (default ./colony.json if present)
  --json               one JSON object per event, the run summary last`;

const OPTIONS = {
  repo: { type: 'string' },
  arg: { type: 'string', multiple: true },
  goal: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  base: { type: 'string' },
  setup: { type: 'string' },
  verify: { type: 'string' },
  'merge-verify': { type: 'string' },
  'approve-merges': { type: 'boolean' },
  concurrency: { type: 'string' },
  'max-steps': { type: 'string' },
  'budget-usd': { type: 'string' },
  'budget-tokens': { type: 'string' },
  stream: { type: 'boolean' },
  ...SANDBOX_OPTIONS,
  config: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function workflowCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, OPTIONS, 'workflow');
  if (values.help) {
    process.stdout.write(`${WORKFLOW_HELP}\n`);
    return 0;
  }
  const file = onePositional(positionals, 'file', 'workflow');
  const args = parseArgPairs(values.arg ?? []);
  const loaded = loadConfig({
    flags: {
      model: values.model,
      baseUrl: values['base-url'],
      base: values.base,
      setup: values.setup,
      verify: values.verify,
      maxSteps: numberFlag(values['max-steps'], 'max-steps', 'int'),
      budgetUsd: numberFlag(values['budget-usd'], 'budget-usd'),
      budgetTokens: numberFlag(values['budget-tokens'], 'budget-tokens', 'int'),
      stream: values.stream,
      ...sandboxFlags('workflow', values),
    },
    env: process.env,
    configFile: values.config,
    cwd: process.cwd(),
  });
  if (!loaded.ok) throw new UsageError(loaded.error);
  const mergeVerify = values['merge-verify'];
  if (mergeVerify !== undefined && mergeVerify.trim() === '')
    throw new UsageError('workflow: --merge-verify must not be empty');
  const prepared = await prepareWorkflowRun({
    file,
    repo: values.repo ?? process.cwd(),
    args,
    config: loaded.config,
    goal: values.goal,
    concurrency: numberFlag(values.concurrency, 'concurrency', 'int'),
    mergeVerify,
    approveMerges: values['approve-merges'] === true,
  });
  if (prepared.dirty.length > 0) {
    process.stderr.write(
      `warning: ${prepared.dirty.length} uncommitted change(s) in ${prepared.spec.repo} are NOT included; the run starts from ${prepared.spec.baseRef} (${prepared.spec.baseCommit.slice(0, 10)})\n`,
    );
  }
  const json = values.json ?? false;
  const onRecorded = () => {
    if (!json)
      process.stdout.write(
        `run ${prepared.spec.runId} started (workflow ${basename(file)}, model ${prepared.spec.model})\n`,
      );
  };
  return runNewInForeground(prepared, { json, onRecorded }, async (store) => {
    if (!json) {
      const [finished] = await store.log.read(prepared.spec.runId, { kinds: ['workflow.finished'] });
      if (finished) process.stdout.write(`\nworkflow result:\n${terminalJson(finished.data, 2)}\n`);
    }
  });
}

export interface WorkflowRunInput {
  file: string;
  repo: string;
  args: Record<string, string>;
  config: ColonyConfig;
  goal?: string;
  concurrency?: number;
  mergeVerify?: string;
  /** Every writer's verified merge request waits for a person's approval. */
  approveMerges?: boolean;
  /** A bundled scripted scenario (colony demo). */
  scenario?: string;
}

/** Validates and transpiles the program and builds the run (nothing is written yet). */
export async function prepareWorkflowRun(input: WorkflowRunInput): Promise<PreparedRun> {
  const file = resolve(input.file);
  return prepareRun(
    {
      repo: input.repo,
      goal: input.goal ?? `workflow ${basename(file)}`,
      config: input.config,
      topology: 'workflow',
      workflow: { file, args: input.args },
      scenario: input.scenario,
      ...(input.concurrency !== undefined ? { concurrency: input.concurrency } : {}),
      ...(input.mergeVerify !== undefined ? { mergeVerify: input.mergeVerify } : {}),
      ...(input.approveMerges ? { approveMerges: true } : {}),
    },
    process.env,
  );
}

export function parseArgPairs(pairs: string[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`workflow: --arg needs KEY=VALUE, got "${pair}"`);
    args[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return args;
}
