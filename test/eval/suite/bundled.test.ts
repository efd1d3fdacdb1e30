/**
 * The bundled offline suite (examples/eval-suite) is valid: every task's start state fails its grade
 * (each failToPass test fails, each passToPass test passes) and its reference.patch passes. Coupled
 * tasks are coupled: the reference fix of either module alone does not pass.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  gradeTree,
  loadSuite,
  materializeRepo,
  repoKeyOf,
  validateSuite,
} from '../../../src/eval/suite/index.js';

const SUITE = path.join(import.meta.dirname, '..', '..', '..', 'examples', 'eval-suite');
const scratch = mkdtempSync(path.join(tmpdir(), 'colony-bundled-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function loaded() {
  const suite = loadSuite(SUITE);
  if (!suite.ok) throw new Error(suite.error.join('\n'));
  return suite.value;
}

describe('bundled eval suite', () => {
  it('has at least 6 tasks in 3 repositories, single, coupled and three independent modules', () => {
    const suite = loaded();
    expect(suite.name).toBe('bundled');
    expect(suite.tasks.length).toBeGreaterThanOrEqual(6);
    expect(new Set(suite.tasks.map((t) => repoKeyOf(t.spec))).size).toBeGreaterThanOrEqual(3);
    const tagged = (tag: string) => suite.tasks.filter((t) => t.spec.tags.includes(tag));
    expect(tagged('single').length).toBeGreaterThanOrEqual(3);
    expect(tagged('coupled').length).toBeGreaterThanOrEqual(2);
    expect(tagged('independent').every((t) => t.spec.tags.includes('modules:3'))).toBe(true);
    expect(tagged('independent').length).toBeGreaterThanOrEqual(1);
    for (const task of suite.tasks) expect(task.referencePatch).not.toBeNull();
  });

  it('validates every task: the start fails and the reference passes', async () => {
    const result = await validateSuite(loaded(), { concurrency: 3, scratchRoot: scratch });
    const problems = result.tasks.flatMap((t) => t.problems.map((p) => `${t.taskId}: ${p}`));
    expect(problems).toEqual([]);
    expect(result.valid).toBe(true);
    for (const task of result.tasks) {
      expect(task.start?.outcome).toBe('fail');
      expect(task.reference?.outcome).toBe('pass');
      expect(task.reference?.score).toBe(1);
    }
  });

  it('needs both modules of a coupled task: half of the reference fix fails', async () => {
    const coupled = loaded().tasks.filter((t) => t.spec.tags.includes('coupled'));
    const halves = coupled.flatMap((task) =>
      splitPatch(readFileSync(task.referencePatch ?? '', 'utf8')).map((half, i) => ({ task, half, i })),
    );
    expect(halves.length).toBeGreaterThanOrEqual(4);
    const grades = await Promise.all(
      halves.map(async ({ task, half, i }) => {
        const dir = path.join(scratch, `${task.spec.id}-half-${i}`);
        const made = await materializeRepo(task, dir);
        if (!made.ok) throw new Error(made.error);
        writeFileSync(path.join(scratch, `${task.spec.id}-${i}.patch`), half);
        execFileSync('git', ['apply', path.join(scratch, `${task.spec.id}-${i}.patch`)], { cwd: dir });
        return { id: task.spec.id, grade: await gradeTree(task, dir, { scratchRoot: scratch }) };
      }),
    );
    for (const { id, grade } of grades)
      expect({ id, outcome: grade.outcome }).toEqual({ id, outcome: 'fail' });
  });
});

/** A patch's per-file parts. */
function splitPatch(patch: string): string[] {
  return patch.split(/^(?=diff --git )/m).filter((part) => part.startsWith('diff --git '));
}
