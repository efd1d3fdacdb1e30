/**
 * `colony eval run`: every (task, arm, trial) of a suite as a real Colony run, graded, one trial
 * record appended per trial to OUT/trials.jsonl (and the arms to OUT/arms.json), so `colony eval
 * report OUT` can read it at any time. Resumable (recorded trials are skipped) and limited to
 * `concurrency` trials at once (each a `colony run` process, which also waits for a run slot like
 * any other run).
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { err, ok, type Result } from '../../lang/result.js';
import { openSandbox, type SandboxMode } from '../../sandbox/index.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { mapLimited } from '../../workflow/limiter.js';
import { loadSuite } from '../suite/load.js';
import { repoKeyOf, type Task } from '../suite/task.js';
import { ARMS_FILE_VERSION, type Outcome, parseArmsFile } from '../trial-record.js';
import { recordedTrials, trialKey } from './recorded.js';
import { isSimulated, type RunArm, runArmsOf } from './run-arm.js';
import { runTrial, type TrialJob } from './run-trial.js';
import { type TrajectoryExport, writeTrialTrajectory } from './trial-trajectory.js';

export const TRIALS_FILE = 'trials.jsonl';
export const ARMS_FILE = 'arms.json';
/** Why each trial ended as it did (an infra error's reason, the run's end): the record has no field for it. */
export const NOTES_FILE = 'notes.jsonl';
/** The suite's tasks with their repository and tags, for the report's per-tag breakdown. */
export const TASKS_FILE = 'tasks.json';
export const TASKS_FILE_VERSION = 1;

export interface EvalRunOptions {
  suite: string;
  arms: string;
  trials: number;
  out: string;
  /** Trials at once (default 1). */
  concurrency?: number;
  /** The runs' agent sandbox (default auto: contained where bubblewrap runs, else not, and said). */
  sandbox?: SandboxMode;
  /**
   * Grading runs the agents' code (their tree's tests and scripts): `on` (the default) in a bubblewrap
   * sandbox with its allow-listed environment, and an error before any trial when the sandbox cannot
   * be had; `off` uncontained, as your user (still without Colony's secrets in its environment).
   */
  gradeSandbox?: 'on' | 'off';
  /** The runs' commands and the grading share the network (default: neither has it). */
  allowNetwork?: boolean;
  /** The runs' environment: model keys, COLONY_HOME / COLONY_DATABASE_URL (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Keep each trial's scratch folder (for debugging). */
  keep?: boolean;
  signal?: AbortSignal;
  /**
   * Export each trial's orchestrator trajectory to OUT/trajectories/ (r_perf = its graded score;
   * docs/trajectory.md), reading its run's events through this.
   */
  trajectories?: TrajectoryExport;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface EvalRunResult {
  ran: number;
  skipped: number;
  outcomes: Record<Outcome, number>;
  /** Every arm whose model is simulated. */
  simulated: string[];
}

/** The jobs in the order they run: trial by trial, so an interrupted eval has balanced data. */
function jobsOf(tasks: readonly Task[], arms: readonly RunArm[], trials: number): TrialJob[] {
  const jobs: TrialJob[] = [];
  for (let trial = 0; trial < trials; trial++)
    for (const task of tasks) for (const arm of arms) jobs.push({ arm, task, trial });
  return jobs;
}

/** OUT/tasks.json: every task's repository and tags (the record has no field for tags). */
async function writeTasksFile(out: string, tasks: readonly Task[]): Promise<void> {
  const byId: Record<string, { repo: string; tags: string[] }> = {};
  for (const t of tasks) byId[t.spec.id] = { repo: repoKeyOf(t.spec), tags: [...t.spec.tags] };
  // Merged with what an earlier run wrote: a resumed eval may run a smaller suite.
  let earlier: Record<string, { repo: string; tags: string[] }> = {};
  try {
    const json = JSON.parse(await readFile(join(out, TASKS_FILE), 'utf8')) as { tasks?: typeof earlier };
    earlier = json.tasks ?? {};
  } catch {
    // None yet (or unreadable: rewritten).
  }
  const text = JSON.stringify({ v: TASKS_FILE_VERSION, tasks: { ...earlier, ...byId } }, null, 2);
  await writeFile(join(out, TASKS_FILE), `${text}\n`);
}

/** The grading sandbox of `gradeSandbox` (null when off), or why it cannot be had. */
async function openGradeSandbox(options: EvalRunOptions): Promise<Result<Sandbox | null>> {
  if (options.gradeSandbox === 'off') return ok(null);
  const setting = { enabled: true, network: options.allowNetwork ?? false, passEnv: [] };
  const opened = await openSandbox(setting, options.env ?? process.env);
  if (opened.ok) return opened;
  return err(
    `grading runs the agents' code in a bubblewrap sandbox, and it cannot be had: ${opened.error} ` +
      '(to grade uncontained, as your user: --grade-sandbox off)',
  );
}

export async function runEval(options: EvalRunOptions): Promise<Result<EvalRunResult>> {
  const log = options.log ?? (() => {});
  const suite = loadSuite(options.suite);
  if (!suite.ok) return err(`suite ${options.suite}:\n  ${suite.error.join('\n  ')}`);
  let armsText: string;
  try {
    armsText = await readFile(options.arms, 'utf8');
  } catch (e) {
    return err(`cannot read ${options.arms}: ${(e as Error).message}`);
  }
  const parsedArms = parseArmsFile(armsText);
  if (!parsedArms.ok) return err(`${options.arms}: ${parsedArms.error}`);
  const arms = runArmsOf(parsedArms.arms, {
    budget: parsedArms.budget,
    armsDir: dirname(resolve(options.arms)),
  });
  if (!arms.ok) return err(`${options.arms}:\n  ${arms.errors.join('\n  ')}`);

  const gradeSandbox = await openGradeSandbox(options);
  if (!gradeSandbox.ok) return gradeSandbox;

  const out = resolve(options.out);
  await mkdir(out, { recursive: true });
  await writeFile(
    join(out, ARMS_FILE),
    `${JSON.stringify(
      {
        v: ARMS_FILE_VERSION,
        ...(parsedArms.budget ? { budget: parsedArms.budget } : {}),
        arms: parsedArms.arms,
      },
      null,
      2,
    )}\n`,
  );
  await writeTasksFile(out, suite.value.tasks);
  const trialsFile = join(out, TRIALS_FILE);
  const recorded = recordedTrials(trialsFile);
  for (const issue of recorded.issues) log(`! ${issue}`);
  const all = jobsOf(suite.value.tasks, arms.arms, options.trials);
  const todo = all.filter((j) => !recorded.keys.has(trialKey(j.arm.name, j.task.spec.id, j.trial)));
  const simulated = arms.arms.filter(isSimulated).map((a) => a.name);
  for (const name of simulated)
    log(
      `arm ${name} uses a SIMULATED model (sim:): its results check the harness and the statistics, not a model`,
    );
  log(
    `${suite.value.tasks.length} task(s) × ${arms.arms.length} arm(s) × ${options.trials} trial(s): ` +
      `${todo.length} to run, ${all.length - todo.length} already recorded in ${trialsFile}`,
  );

  const outcomes: Record<Outcome, number> = { pass: 0, fail: 0, timeout: 0, infra_error: 0 };
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const scratchRoot = join(tmpdir(), 'colony-eval');
  await mkdir(scratchRoot, { recursive: true });
  // One append at a time: concurrent trials never interleave their lines.
  let writing: Promise<void> = Promise.resolve();
  let done = 0;
  try {
    await mapLimited(todo, concurrency, async (job) => {
      if (options.signal?.aborted) return;
      const { record, note } = await runTrial(job, {
        scratchRoot,
        sandbox: options.sandbox ?? 'auto',
        gradeSandbox: gradeSandbox.value,
        ...(options.allowNetwork ? { allowNetwork: true } : {}),
        env: options.env ?? process.env,
        ...(options.keep ? { keep: true } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      // An interrupted trial is not a result: it runs again when the eval is resumed.
      if (options.signal?.aborted) {
        log(`interrupted: ${job.arm.name} ${job.task.spec.id} #${job.trial} (not recorded)`);
        return;
      }
      const noteLine = {
        arm: record.arm,
        task: record.task,
        trial: record.trial,
        outcome: record.outcome,
        runId: record.runId,
        // The limits this trial ran under (the matched budget, or the arm's lower one).
        budget: job.arm.budget,
        note,
      };
      writing = writing.then(async () => {
        await appendFile(trialsFile, `${JSON.stringify(record)}\n`);
        await appendFile(join(out, NOTES_FILE), `${JSON.stringify(noteLine)}\n`);
      });
      await writing;
      if (options.trajectories) {
        const exported = await writeTrialTrajectory(out, record, options.trajectories);
        if (!exported.ok) log(`! ${job.arm.name} ${job.task.spec.id} #${job.trial}: ${exported.error}`);
      }
      outcomes[record.outcome]++;
      done++;
      const why = record.outcome === 'infra_error' ? ` — ${note}` : '';
      log(
        `[${done}/${todo.length}] ${job.arm.name} ${job.task.spec.id} #${job.trial}: ${record.outcome} ` +
          `score ${record.score.toFixed(2)} in ${(record.wallMs / 1000).toFixed(1)} s${why}`,
      );
    });
  } finally {
    await writing;
  }
  return ok({ ran: done, skipped: all.length - todo.length, outcomes, simulated });
}
