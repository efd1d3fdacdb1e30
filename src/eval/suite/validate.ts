/**
 * A task is valid when it measures something: its start state fails (every failToPass test fails,
 * every passToPass test passes, and the grade itself worked) and its reference fix passes
 * (reference.patch applied with `git apply` to a scratch checkout of the start state).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { mapLimited } from '../../workflow/limiter.js';
import { applyPatch, materializeRepo } from './checkout.js';
import { type Grade, type GradeOptions, gradeTree } from './grade.js';
import type { Suite, Task } from './task.js';

export interface TaskValidation {
  taskId: string;
  valid: boolean;
  /** What makes it invalid, one line each. */
  problems: string[];
  start: Grade | null;
  reference: Grade | null;
  durationMs: number;
}

export interface SuiteValidation {
  valid: boolean;
  tasks: TaskValidation[];
}

export interface ValidateOptions extends Omit<GradeOptions, 'keep'> {
  /** Tasks validated at once (default: the number of cores). */
  concurrency?: number;
}

export async function validateSuite(suite: Suite, options: ValidateOptions = {}): Promise<SuiteValidation> {
  const limit = options.concurrency ?? availableParallelism();
  const tasks = await mapLimited(suite.tasks, limit, (task) => validateTask(task, options));
  return { valid: tasks.every((t) => t.valid), tasks };
}

export async function validateTask(task: Task, options: GradeOptions = {}): Promise<TaskValidation> {
  const started = performance.now();
  const scratch = await mkdtemp(
    path.join(options.scratchRoot ?? tmpdir(), `colony-validate-${task.spec.id}-`),
  );
  const problems: string[] = [];
  let start: Grade | null = null;
  let reference: Grade | null = null;
  try {
    const checkout = path.join(scratch, 'repo');
    const made = await materializeRepo(task, checkout);
    if (!made.ok) problems.push(made.error);
    else {
      start = await gradeTree(task, checkout, { ...options, keep: false });
      problems.push(...startProblems(start));
      if (!task.referencePatch) problems.push('no reference.patch: the task cannot be shown to be solvable');
      else {
        const applied = await applyPatch(checkout, task.referencePatch);
        if (!applied.ok) problems.push(`reference: ${applied.error}`);
        else {
          reference = await gradeTree(task, checkout, { ...options, keep: false });
          problems.push(...referenceProblems(reference));
        }
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return {
    taskId: task.spec.id,
    valid: problems.length === 0,
    problems,
    start,
    reference,
    durationMs: Math.round(performance.now() - started),
  };
}

function startProblems(grade: Grade): string[] {
  if (grade.outcome === 'timeout' || grade.outcome === 'infra_error')
    return [`start: ${grade.outcome}: ${grade.error ?? ''}`];
  return grade.checks.flatMap((check) => {
    if (check.list === 'failToPass' && check.status === 'pass')
      return [`start: failToPass test already passes: ${check.name}`];
    if (check.list === 'passToPass' && check.status !== 'pass')
      return [`start: passToPass test does not pass (${check.status}): ${check.name}`];
    return [];
  });
}

function referenceProblems(grade: Grade): string[] {
  if (grade.outcome === 'pass') return [];
  if (grade.outcome === 'timeout' || grade.outcome === 'infra_error')
    return [`reference: ${grade.outcome}: ${grade.error ?? ''}`];
  return grade.checks
    .filter((check) => check.status !== 'pass')
    .map((check) => `reference: ${check.list} test does not pass (${check.status}): ${check.name}`);
}
