/**
 * Task validation: a task is valid when its start state fails (failToPass failing, passToPass passing)
 * and its reference fix passes; each way of being invalid is named. Tasks whose repository is a git
 * source at a commit are checked out at that commit.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { materializeRepo } from '../../../src/eval/suite/checkout.js';
import type { Suite } from '../../../src/eval/suite/task.js';
import { validateSuite, validateTask } from '../../../src/eval/suite/validate.js';
import { gitCheckout, loadOrThrow, MINI_REPO, writeMiniTask } from './fixture.js';

const root = mkdtempSync(path.join(tmpdir(), 'colony-validate-test-'));
const scratchRoot = path.join(root, 'scratch');
mkdirSync(scratchRoot);
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const dir = () => path.join(root, `task-${n++}`);

describe('validateTask', () => {
  it('accepts a task whose start fails and whose reference passes', async () => {
    const result = await validateTask(loadOrThrow(writeMiniTask({}, dir())), { scratchRoot });
    expect(result).toMatchObject({ taskId: 'mini', valid: true, problems: [] });
    expect(result.start?.outcome).toBe('fail');
    expect(result.reference?.outcome).toBe('pass');
  });

  it('names a failToPass test that already passes and a passToPass test that fails at the start', async () => {
    const task = loadOrThrow(
      writeMiniTask({ spec: { failToPass: ['double doubles'], passToPass: ['add adds'] } }, dir()),
    );
    const result = await validateTask(task, { scratchRoot });
    expect(result.valid).toBe(false);
    expect(result.problems).toEqual([
      'start: failToPass test already passes: double doubles',
      'start: passToPass test does not pass (fail): add adds',
    ]);
  });

  it('names the tests a reference fix does not make pass', async () => {
    const noFix =
      'diff --git a/src/math.js b/src/math.js\n--- a/src/math.js\n+++ b/src/math.js\n@@ -1,2 +1,2 @@\n export const add = (a, b) => a - b;\n-export const double = (a) => a * 2;\n+export const double = (a) => a + a;\n';
    const result = await validateTask(loadOrThrow(writeMiniTask({ reference: noFix }, dir())), {
      scratchRoot,
    });
    expect(result.problems).toEqual(['reference: failToPass test does not pass (fail): add adds']);
  });

  it('reports a reference that does not apply, a missing one and a start that cannot be graded', async () => {
    const stale = (
      await validateTask(
        loadOrThrow(
          writeMiniTask({ reference: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n' }, dir()),
        ),
        { scratchRoot },
      )
    ).problems;
    expect(stale).toEqual([expect.stringMatching(/^reference: cannot apply reference\.patch: /)]);
    const missing = (
      await validateTask(loadOrThrow(writeMiniTask({ reference: null }, dir())), { scratchRoot })
    ).problems;
    expect(missing).toEqual(['no reference.patch: the task cannot be shown to be solvable']);
    const broken = loadOrThrow(
      writeMiniTask({ spec: { verify: { command: 'exit 1', results: 'node-test-tap' } } }, dir()),
    );
    const result = await validateTask(broken, { scratchRoot });
    expect(result.problems[0]).toMatch(/^start: infra_error: /);
  });

  it('checks out a git source at the task commit, not at its newest', async () => {
    const upstream = gitCheckout(MINI_REPO, path.join(root, 'upstream'));
    const start = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: upstream, encoding: 'utf8' }).trim();
    writeFileSync(
      path.join(upstream, 'src', 'math.js'),
      'export const add = (a, b) => a + b;\nexport const double = (a) => a * 2;\n',
    );
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', 'commit', '-qam', 'fix'], {
      cwd: upstream,
    });
    const task = loadOrThrow(writeMiniTask({ spec: { repo: { git: upstream, commit: start } } }, dir()));
    const checkout = path.join(root, 'checkout');
    expect(await materializeRepo(task, checkout)).toEqual({ ok: true, value: { commit: start } });
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: checkout, encoding: 'utf8' }).trim()).toBe(
      start,
    );
    expect((await validateTask(task, { scratchRoot })).problems).toEqual([]);
    const unknown = loadOrThrow(
      writeMiniTask({ spec: { repo: { git: upstream, commit: 'f'.repeat(40) } } }, dir()),
    );
    expect((await validateTask(unknown, { scratchRoot })).problems).toEqual([
      expect.stringContaining(`cannot check out ${'f'.repeat(40)}`),
    ]);
  });

  it('commits a folder start state the same way every time', async () => {
    const task = loadOrThrow(writeMiniTask({}, dir()));
    const a = await materializeRepo(task, path.join(root, 'a'));
    const b = await materializeRepo(task, path.join(root, 'b'));
    expect(a.ok && b.ok && a.value.commit === b.value.commit).toBe(true);
  });
});

describe('validateSuite', () => {
  it('is valid only when every task is', async () => {
    const good = loadOrThrow(writeMiniTask({ spec: { id: 'good' } }, dir()));
    const bad = loadOrThrow(writeMiniTask({ spec: { id: 'bad' }, reference: null }, dir()));
    const suite: Suite = { name: 's', dir: root, tasks: [good, bad] };
    const result = await validateSuite(suite, { concurrency: 2, scratchRoot });
    expect(result.valid).toBe(false);
    expect(result.tasks.map((t) => [t.taskId, t.valid])).toEqual([
      ['good', true],
      ['bad', false],
    ]);
    expect((await validateSuite({ ...suite, tasks: [good] }, { scratchRoot })).valid).toBe(true);
  });
});
