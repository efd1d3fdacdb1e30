/**
 * One trial of `colony eval run`: the task's start state (no hidden tests) in a scratch folder, a
 * real Colony run of the arm on it (`colony run`, colony-run.ts), the run's result branch checked
 * out and graded with the hidden tests, and the trial record. Whatever goes wrong in the harness
 * (checkout, run start, grading) is an `infra_error` record with the reason, never a throw: one
 * broken task must not end the eval.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
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
import { trialModel } from './trial-model.js';

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

/**
 * The `colony run` flags of a trial: the arm's team and limits, the task's goal, setup and verify.
 * Always `--flag=value`: a goal or command that starts with `-` must not read as a flag.
 */
export function runArgs(job: TrialJob, repo: string, sandbox: SandboxMode): string[] {
  const { arm, task } = job;
  const flags: Array<[string, string | number | undefined]> = [
    ['repo', repo],
    ['goal', task.spec.goal],
    ['model', trialModel(arm, task.dir, task.spec.id, job.trial)],
    ['topology', arm.topology],
    ['verify', task.spec.verify.command],
    ['sandbox', sandbox],
    ['setup', task.spec.setup.length > 0 ? task.spec.setup.join(' && ') : undefined],
    ['agents', arm.topology === 'peers' ? arm.size : undefined],
    ['concurrency', arm.topology === 'peers' ? (arm.concurrency ?? arm.size) : undefined],
    ['max-steps', arm.maxSteps],
    ['budget-usd', arm.budgetUsd],
    ['budget-tokens', arm.budgetTokens],
    ['accept', arm.accept],
    ['deadline', `${arm.deadlineS ?? DEFAULT_DEADLINE_S}s`],
  ];
  return flags.flatMap(([name, value]) => (value === undefined ? [] : [`--${name}=${value}`]));
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

  const started = performance.now();
  // cwd: the scratch folder, so no ./colony.json of the user's is picked up.
  const ran = await runColony(runArgs(job, repo, ctx.sandbox), {
    cwd: dir,
    env: ctx.env,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
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
  };

  // No result branch: the team produced nothing, so its start state is what gets graded.
  if (summary.resultBranch) {
    try {
      await git('git', ['-C', repo, 'checkout', '-q', '-f', summary.resultBranch]);
    } catch (e) {
      return infra(`cannot check out ${summary.resultBranch}: ${(e as Error).message}`, team);
    }
  }
  const grade = await gradeTree(task, repo, { sandbox: ctx.gradeSandbox, env: ctx.env, scratchRoot: dir });
  if (grade.outcome === 'infra_error') return infra(`grading: ${grade.error ?? 'unknown'}`, team);
  // A run that hit its deadline is a time-out, unless what it left passes anyway.
  const timedOut = summary.status === 'deadline_exceeded' && grade.outcome !== 'pass';
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
