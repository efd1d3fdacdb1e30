/**
 * One trial of `colony eval run`: the task's start state (no hidden tests) in a scratch folder, a
 * real Colony run of the arm on it (`colony run`, colony-run.ts), the run's result branch checked
 * out and graded with the hidden tests (in the grading sandbox: the tree is the agents' work, so
 * its tests are their code), and the trial record. Whatever goes wrong in the harness
 * (checkout, run start, grading) is an `infra_error` record with the reason, never a throw: one
 * broken task must not end the eval.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SandboxMode } from '../../sandbox/index.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { materializeRepo } from '../suite/checkout.js';
import { gradeTree } from '../suite/grade.js';
import { repoKeyOf, type Task } from '../suite/task.js';
import { TRIAL_RECORD_VERSION, type TrialRecord } from '../trial-record.js';
import { runColony } from './colony-run.js';
import type { RunArm } from './run-arm.js';
import { trialModel, trialModelId } from './trial-model.js';

const git = promisify(execFile);
const DEFAULT_DEADLINE_S = 1800;

export interface TrialJob {
  arm: RunArm;
  task: Task;
  trial: number;
}

export interface TrialContext {
  /** Where each trial's scratch folder is made (removed after, unless `keep`). */
  scratchRoot: string;
  /** The runs' agent sandbox (`--sandbox`), and the grading sandbox (null: uncontained). */
  sandbox: SandboxMode;
  gradeSandbox: Sandbox | null;
  /** The runs' commands share the network (`colony run --allow-network`). */
  allowNetwork?: boolean;
  env: NodeJS.ProcessEnv;
  keep?: boolean;
  signal?: AbortSignal;
}

export interface TrialResult {
  record: TrialRecord;
  /** Why an infra error happened, or the run's end reason. */
  note: string;
}

function blank(job: TrialJob): TrialRecord {
  return {
    v: TRIAL_RECORD_VERSION,
    arm: job.arm.name,
    task: job.task.spec.id,
    repo: repoKeyOf(job.task.spec),
    trial: job.trial,
    outcome: 'infra_error',
    score: 0,
    wallMs: 0,
    firstGreenMs: null,
    tokens: { input: 0, cachedInput: 0, output: 0 },
    costUsd: 0,
    criticalSteps: 0,
    parallelism: 0,
    merges: 0,
    conflicts: 0,
    runId: null,
  };
}

export async function runTrial(job: TrialJob, ctx: TrialContext): Promise<TrialResult> {
  const dir = await mkdtemp(join(ctx.scratchRoot, `${job.task.spec.id}-${job.arm.name}-${job.trial}-`));
  try {
    return await trialIn(dir, job, ctx);
  } catch (e) {
    // A bug or an unexpected failure below: still one record, so the eval goes on.
    return { record: blank(job), note: `harness error: ${(e as Error).message}` };
  } finally {
    if (!ctx.keep) await rm(dir, { recursive: true, force: true });
  }
}

/** The profiles a subagent can be given (built-in names): each gets the arm's subagent model. */
const SUBAGENT_PROFILES = ['coder', 'explore', 'reviewer', 'plan', 'integrator'] as const;

/**
 * The config file a trial's run reads, when the arm gives a role a model of its own: every built-in
 * profile redefined with the subagent model (a config profile wins over the built-in one, so whatever
 * profile the lead picks runs it). Null when the run needs none.
 */
export function trialConfig(job: TrialJob): Record<string, unknown> | null {
  const subagent = job.arm.models?.subagent;
  if (subagent === undefined) return null;
  const model = trialModelId(subagent, job.arm.name, job.task.dir, job.task.spec.id, job.trial);
  return { profiles: Object.fromEntries(SUBAGENT_PROFILES.map((p) => [p, { base: p, model }])) };
}

/**
 * The `colony run` (or, for a workflow arm, `colony workflow PROGRAM`) arguments of a trial: the
 * arm's team and limits, the task's goal, setup and verify. Always `--flag=value`: a goal or command
 * that starts with `-` must not read as a flag. `config`: the trial's config file (trialConfig).
 */
export function runArgs(
  job: TrialJob,
  repo: string,
  sandbox: SandboxMode,
  config?: string,
  allowNetwork = false,
): string[] {
  const { arm, task } = job;
  const workflow = arm.topology === 'workflow';
  const lead = arm.models?.lead;
  const model =
    lead === undefined
      ? trialModel(arm, task.dir, task.spec.id, job.trial)
      : trialModelId(lead, arm.name, task.dir, task.spec.id, job.trial);
  const flags: Array<[string, string | number | undefined]> = [
    ['repo', repo],
    ['goal', task.spec.goal],
    ['model', model],
    ['topology', workflow ? undefined : arm.topology],
    ['verify', task.spec.verify.command],
    ['sandbox', sandbox],
    ['setup', task.spec.setup.length > 0 ? task.spec.setup.join(' && ') : undefined],
    ['agents', arm.topology === 'peers' ? arm.size : undefined],
    ['concurrency', arm.topology === 'peers' ? (arm.concurrency ?? arm.size) : arm.concurrency],
    ['max-steps', arm.maxSteps],
    ['budget-usd', arm.budget.usd],
    ['budget-tokens', arm.budget.tokens],
    ['accept', arm.accept],
    // colony workflow has no --deadline: runTrial stops it at the deadline instead.
    ['deadline', workflow ? undefined : `${deadlineS(arm)}s`],
    ['config', config],
    // A workflow program reads the task from its arguments (w.args.goal, w.args.verify).
    ['arg', workflow ? `goal=${task.spec.goal}` : undefined],
  ];
  const args = flags.flatMap(([name, value]) => (value === undefined ? [] : [`--${name}=${value}`]));
  if (allowNetwork) args.push('--allow-network');
  return workflow && arm.program ? [arm.program, ...args] : args;
}

function deadlineS(arm: RunArm): number {
  return arm.deadlineS ?? DEFAULT_DEADLINE_S;
}

async function trialIn(dir: string, job: TrialJob, ctx: TrialContext): Promise<TrialResult> {
  const { task } = job;
  const infra = (note: string, extra: Partial<TrialRecord> = {}): TrialResult => ({
    record: { ...blank(job), ...extra },
    note,
  });
  const repo = join(dir, 'repo');
  const start = await materializeRepo(task, repo);
  if (!start.ok) return infra(`checkout: ${start.error}`);

  const config = trialConfig(job);
  const configFile = config ? join(dir, 'colony-eval.json') : undefined;
  if (configFile) await writeFile(configFile, `${JSON.stringify(config, null, 2)}\n`);
  const workflow = job.arm.topology === 'workflow';
  // colony workflow has no deadline of its own: stopped at the arm's deadline like a Ctrl-C.
  const deadline = workflow ? AbortSignal.timeout(deadlineS(job.arm) * 1000) : null;
  const signals = [ctx.signal, deadline].filter((s): s is AbortSignal => s !== undefined && s !== null);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];

  const started = performance.now();
  // cwd: the scratch folder, so no ./colony.json of the user's is picked up.
  const ran = await runColony(runArgs(job, repo, ctx.sandbox, configFile, ctx.allowNetwork), {
    cwd: dir,
    env: ctx.env,
    command: workflow ? 'workflow' : 'run',
    // No --merge-verify is given, so every merge of a team is checked with the verify command.
    green: { verify: task.spec.verify.command, mergesVerified: job.arm.topology !== 'solo' },
    ...(signal ? { signal } : {}),
  });
  const wallMs = Math.round(performance.now() - started);
  const summary = ran.summary;
  if (!summary) {
    const why = ran.stderrTail.trim().split('\n').slice(-3).join(' | ') || 'no summary';
    return infra(`run: colony run exited ${ran.exitCode ?? 'by a signal'}: ${why}`, { wallMs });
  }
  const team: Partial<TrialRecord> = {
    wallMs,
    runId: summary.runId,
    tokens: {
      input: summary.tokens.input,
      cachedInput: summary.tokens.cachedInput,
      output: summary.tokens.output,
    },
    costUsd: summary.costUsd ?? 0,
    criticalSteps: summary.criticalSteps,
    parallelism: summary.parallelism,
    merges: ran.merges,
    conflicts: ran.conflicts,
    firstGreenMs: ran.firstGreenMs,
  };

  // No result branch: the team produced nothing, so its start state is what gets graded.
  if (summary.resultBranch) {
    try {
      await git('git', ['-C', repo, 'checkout', '-q', '-f', summary.resultBranch]);
    } catch (e) {
      return infra(`cannot check out ${summary.resultBranch}: ${(e as Error).message}`, team);
    }
  }
  const grade = await gradeTree(task, repo, {
    sandbox: ctx.gradeSandbox,
    env: ctx.env,
    scratchRoot: dir,
    ...(ctx.keep ? { keep: true } : {}),
  });
  if (grade.outcome === 'infra_error') return infra(`grading: ${grade.error ?? 'unknown'}`, team);
  // A run that hit its deadline is a time-out, unless what it left passes anyway.
  const pastDeadline =
    summary.status === 'deadline_exceeded' || (deadline?.aborted === true && !ctx.signal?.aborted);
  const timedOut = pastDeadline && grade.outcome !== 'pass';
  return {
    record: {
      ...blank(job),
      ...team,
      outcome: timedOut ? 'timeout' : grade.outcome,
      score: grade.score,
    },
    note: `run ${summary.status}: ${summary.reason ?? ''}`.trim(),
  };
}
