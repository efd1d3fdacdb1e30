/**
 * Grading one working tree against one task: a scratch copy of the tree (the agents' repository is
 * never written), the hidden tests added to it, the task's setup and verify commands run in it within
 * the task's time-out (contained when a sandbox is given), the per-test results parsed and judged.
 * The tree may be agents' work, so hostile: it is copied without following its links, the hidden tests
 * replace any link on their way in, the results are read without following links, and its commands
 * never see Colony's secrets (commandEnv; in a sandbox, only the sandbox's allow-listed environment).
 *
 * Outcomes: `pass` (every listed test passes), `fail`, `timeout` (setup or verify ran out of time; the
 * score counts what was reported before), `infra_error` (the grade could not be taken: the hidden
 * tests would not go in, a setup command failed, the results are missing or unparsable).
 */
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Sandbox, setupSandbox } from '../../sandbox/index.js';
import { applyPatch, copyTree } from './checkout.js';
import { type CommandRecord, commandEnv, runCommand, runVerify } from './run-verify.js';
import type { Task } from './task.js';
import { judge, type TestCheck } from './verdict.js';

export type { CommandRecord };

export type GradeOutcome = 'pass' | 'fail' | 'timeout' | 'infra_error';

export interface Grade {
  taskId: string;
  outcome: GradeOutcome;
  /** Share of the listed tests that pass, 0..1 (0 when no results could be read). */
  score: number;
  passed: number;
  total: number;
  checks: TestCheck[];
  /** Why the outcome is timeout or infra_error. */
  error?: string;
  commands: CommandRecord[];
  durationMs: number;
}

export interface GradeOptions {
  /** Contain setup (with network) and verify in this sandbox; null or absent runs them as Colony's user. */
  sandbox?: Sandbox | null;
  /** Where the commands' environment comes from, less its secrets (default: Colony's). */
  env?: NodeJS.ProcessEnv;
  /** Where the scratch copy is made (default: the system temp folder). */
  scratchRoot?: string;
  /** Leave the scratch copy in place (its path is in `scratch`), to look at a failed grade. */
  keep?: boolean;
}

export async function gradeTree(
  task: Task,
  tree: string,
  options: GradeOptions = {},
): Promise<Grade & { scratch?: string }> {
  const started = performance.now();
  const scratchParent = await mkdtemp(
    path.join(options.scratchRoot ?? tmpdir(), `colony-grade-${task.spec.id}-`),
  );
  const scratch = path.join(scratchParent, 'tree');
  try {
    const grade = await gradeIn(task, tree, scratch, options);
    return {
      ...grade,
      durationMs: Math.round(performance.now() - started),
      ...(options.keep ? { scratch } : {}),
    };
  } finally {
    if (!options.keep) await rm(scratchParent, { recursive: true, force: true });
  }
}

async function gradeIn(
  task: Task,
  tree: string,
  scratch: string,
  options: GradeOptions,
): Promise<Omit<Grade, 'durationMs'>> {
  const { spec } = task;
  const commands: CommandRecord[] = [];
  const empty = judge(spec, []);
  const stop = (outcome: 'timeout' | 'infra_error', error: string) => ({
    taskId: spec.id,
    outcome,
    score: 0,
    passed: 0,
    total: empty.total,
    checks: empty.checks,
    error,
    commands,
  });

  const copied = await copyTree(tree, scratch);
  if (!copied.ok) return stop('infra_error', copied.error);
  const hidden = await addHidden(task, scratch);
  if (!hidden.ok) return stop('infra_error', hidden.error);

  const deadline = performance.now() + spec.timeoutS * 1000;
  const env = commandEnv(options.env ?? process.env);
  const context = (sandbox: Sandbox | null) => ({
    env,
    sandbox,
    timeoutMs: Math.max(1, Math.round(deadline - performance.now())),
  });

  // The tree graded is the agent's: setup has the network only if the run's commands have it.
  for (const command of spec.setup) {
    const record = await runCommand(command, scratch, context(setupSandbox(options.sandbox, false)));
    commands.push(record);
    if (record.timedOut)
      return stop('timeout', `setup \`${command}\` ran past the ${spec.timeoutS} s time-out`);
    if (record.exitCode !== 0)
      return stop('infra_error', `setup \`${command}\` exited with ${record.exitCode ?? 'a signal'}`);
  }

  const verify = await runVerify(spec.verify, scratch, context(options.sandbox ?? null));
  commands.push(verify.record);
  const parsed = verify.results;
  const verdict = parsed?.ok ? judge(spec, parsed.value) : empty;
  const base = {
    taskId: spec.id,
    score: verdict.score,
    passed: verdict.passed,
    total: verdict.total,
    checks: verdict.checks,
    commands,
  };
  const exit = verify.record.exitCode;
  if (verify.record.timedOut)
    return { ...base, outcome: 'timeout', error: `verify ran past the ${spec.timeoutS} s time-out` };
  if (parsed === null)
    return stop('infra_error', `verify (exit ${exit}) wrote no results to ${spec.verify.file ?? 'stdout'}`);
  if (!parsed.ok)
    return stop('infra_error', `verify (exit ${exit}): unreadable ${spec.verify.results}: ${parsed.error}`);
  return { ...base, outcome: verdict.pass ? 'pass' : 'fail' };
}

/**
 * The hidden tests: a folder copied over the scratch copy, or a patch applied to it (git apply
 * refuses a path beyond a link by itself).
 */
async function addHidden(task: Task, scratch: string) {
  const { hidden } = task.spec;
  if (typeof hidden === 'string') {
    const from = path.join(task.dir, hidden);
    await dropLinksInTheWay(scratch, await pathsUnder(from));
    return copyTree(from, scratch);
  }
  return applyPatch(scratch, path.join(task.dir, hidden.patch));
}

/** Every path under `dir`, relative to it. */
async function pathsUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => []);
  return entries.map((entry) => String(entry));
}

/**
 * A link of the tree where a hidden file or folder goes, or on its way there, is removed: copying
 * through it would write outside the tree (`tests -> /home/you`). The hidden tests replace what is
 * there anyway. Nothing of the agents runs meanwhile: their run has ended, and this copy is new.
 */
async function dropLinksInTheWay(tree: string, paths: readonly string[]): Promise<void> {
  const prefixes = new Set<string>();
  for (const rel of paths) {
    const parts = rel.split(path.sep);
    for (let i = 1; i <= parts.length; i++) prefixes.add(parts.slice(0, i).join(path.sep));
  }
  // Shortest first: a link removed near the root leaves nothing below it to look at.
  for (const rel of [...prefixes].sort((a, b) => a.length - b.length)) {
    const target = path.join(tree, rel);
    const stat = await lstat(target).catch(() => null);
    if (stat?.isSymbolicLink()) await rm(target, { force: true });
  }
}
