/**
 * Grading a working tree: the outcome and score from the hidden tests, the agents' tree never written,
 * the time-out, setup failures and unreadable results as infra errors, results from a file, hidden
 * tests as a patch, and a contained grade.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gradeTree } from '../../../src/eval/suite/grade.js';
import { machineSandbox } from '../../sandbox/helpers.js';
import { gitCheckout, loadOrThrow, MINI_REPO, writeMiniTask } from './fixture.js';

const root = mkdtempSync(path.join(tmpdir(), 'colony-grade-test-'));
const scratchRoot = path.join(root, 'scratch');
mkdirSync(scratchRoot);
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const dir = (name: string) => path.join(root, `${name}-${n++}`);

const FIXED = {
  ...MINI_REPO,
  'src/math.js': 'export const add = (a, b) => a + b;\nexport const double = (a) => a * 2;\n',
};
const buggyTree = gitCheckout(MINI_REPO, dir('buggy'));
const fixedTree = gitCheckout(FIXED, dir('fixed'));
const TAP = 'node --test --test-reporter=tap';

describe('gradeTree', () => {
  it('fails the start state with the share of listed tests passing', async () => {
    const task = loadOrThrow(writeMiniTask({}, dir('task')));
    const grade = await gradeTree(task, buggyTree, { scratchRoot });
    expect(grade).toMatchObject({ taskId: 'mini', outcome: 'fail', passed: 2, total: 3 });
    expect(grade.score).toBeCloseTo(2 / 3);
    expect(grade.checks).toEqual([
      { name: 'add adds', list: 'failToPass', status: 'fail' },
      { name: 'double doubles', list: 'passToPass', status: 'pass' },
      { name: 'add with zero', list: 'passToPass', status: 'pass' },
    ]);
    expect(grade.commands).toHaveLength(1);
  });

  it('passes a fixed tree, leaves the tree untouched and removes its scratch copy', async () => {
    const task = loadOrThrow(writeMiniTask({}, dir('task')));
    const grade = await gradeTree(task, fixedTree, { scratchRoot });
    expect(grade).toMatchObject({ outcome: 'pass', score: 1, passed: 3, total: 3 });
    expect(
      execFileSync('git', ['status', '--porcelain', '--ignored'], { cwd: fixedTree, encoding: 'utf8' }),
    ).toBe('');
    expect(existsSync(path.join(fixedTree, 'test', 'grading'))).toBe(false);
    expect(readdirSync(scratchRoot)).toEqual([]);
  });

  it('runs setup first, in the scratch copy', async () => {
    const task = loadOrThrow(
      writeMiniTask(
        {
          spec: {
            setup: ['echo ready > setup-ran'],
            verify: { command: `test -f setup-ran && ${TAP}`, results: 'node-test-tap' },
          },
        },
        dir('task'),
      ),
    );
    expect((await gradeTree(task, fixedTree, { scratchRoot })).outcome).toBe('pass');
    expect(existsSync(path.join(fixedTree, 'setup-ran'))).toBe(false);
  });

  it('times out, killing the command, with the time-out in the error', async () => {
    const task = loadOrThrow(
      writeMiniTask(
        { spec: { timeoutS: 1, verify: { command: `sleep 30; ${TAP}`, results: 'node-test-tap' } } },
        dir('task'),
      ),
    );
    const started = Date.now();
    const grade = await gradeTree(task, fixedTree, { scratchRoot });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(grade).toMatchObject({
      outcome: 'timeout',
      score: 0,
      error: expect.stringContaining('1 s time-out'),
    });
    const slowSetup = loadOrThrow(writeMiniTask({ spec: { timeoutS: 1, setup: ['sleep 30'] } }, dir('task')));
    expect(await gradeTree(slowSetup, fixedTree, { scratchRoot })).toMatchObject({
      outcome: 'timeout',
      error: expect.stringContaining('setup `sleep 30`'),
    });
  });

  it('is an infra error when setup fails or the results cannot be read', async () => {
    const failingSetup = loadOrThrow(writeMiniTask({ spec: { setup: ['true', 'exit 3'] } }, dir('task')));
    expect(await gradeTree(failingSetup, fixedTree, { scratchRoot })).toMatchObject({
      outcome: 'infra_error',
      score: 0,
      error: 'setup `exit 3` exited with 3',
    });
    const noTap = loadOrThrow(
      writeMiniTask(
        { spec: { verify: { command: 'echo all good', results: 'node-test-tap' } } },
        dir('task'),
      ),
    );
    expect(await gradeTree(noTap, fixedTree, { scratchRoot })).toMatchObject({
      outcome: 'infra_error',
      error: expect.stringContaining('no TAP results'),
    });
    const noFile = loadOrThrow(
      writeMiniTask(
        { spec: { verify: { command: 'true', results: 'junit-xml', file: 'out/results.xml' } } },
        dir('task'),
      ),
    );
    expect(await gradeTree(noFile, fixedTree, { scratchRoot })).toMatchObject({
      outcome: 'infra_error',
      error: expect.stringContaining('wrote no results to out/results.xml'),
    });
  });

  it('reads results from a file, and never a stale one left in the tree', async () => {
    const junit = {
      command: 'node --test --test-reporter=junit --test-reporter-destination=results.xml',
      results: 'junit-xml',
      file: 'results.xml',
    } as const;
    const task = loadOrThrow(writeMiniTask({ spec: { verify: junit } }, dir('task')));
    expect(await gradeTree(task, fixedTree, { scratchRoot })).toMatchObject({ outcome: 'pass', score: 1 });
    expect((await gradeTree(task, buggyTree, { scratchRoot })).outcome).toBe('fail');
    const forged =
      '<testsuites><testcase name="add adds"/><testcase name="double doubles"/><testcase name="add with zero"/></testsuites>';
    const cheating = gitCheckout({ ...MINI_REPO, 'results.xml': forged }, dir('cheat'));
    const lazy = loadOrThrow(writeMiniTask({ spec: { verify: { ...junit, command: 'true' } } }, dir('task')));
    expect((await gradeTree(lazy, cheating, { scratchRoot })).outcome).toBe('infra_error');
  });

  it('adds hidden tests from a patch file', async () => {
    const patch = [
      'diff --git a/test/grading/add.test.js b/test/grading/add.test.js',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/test/grading/add.test.js',
      '@@ -0,0 +1,4 @@',
      "+import assert from 'node:assert/strict';",
      "+import { test } from 'node:test';",
      "+import { add } from '../../src/math.js';",
      "+test('add adds', () => assert.equal(add(2, 3), 5));",
      '',
    ].join('\n');
    const task = loadOrThrow(
      writeMiniTask(
        {
          spec: { hidden: { patch: 'tests.patch' }, passToPass: ['double doubles'] },
          extra: { 'tests.patch': patch },
        },
        dir('task'),
      ),
    );
    expect((await gradeTree(task, buggyTree, { scratchRoot })).outcome).toBe('fail');
    expect(await gradeTree(task, fixedTree, { scratchRoot })).toMatchObject({ outcome: 'pass', score: 1 });
    const broken = loadOrThrow(
      writeMiniTask(
        { spec: { hidden: { patch: 'tests.patch' } }, extra: { 'tests.patch': 'not a patch' } },
        dir('task'),
      ),
    );
    expect(await gradeTree(broken, fixedTree, { scratchRoot })).toMatchObject({
      outcome: 'infra_error',
      error: expect.stringContaining('tests.patch'),
    });
  });

  it("is not confused by Colony's own NODE_TEST_CONTEXT", async () => {
    const task = loadOrThrow(writeMiniTask({}, dir('task')));
    const grade = await gradeTree(task, fixedTree, {
      scratchRoot,
      env: { ...process.env, NODE_TEST_CONTEXT: 'child' },
    });
    expect(grade.outcome).toBe('pass');
  });

  it('contains setup and verify in the sandbox: the agents’ tree is out of reach', async () => {
    const sandbox = await machineSandbox();
    const escaped = path.join(fixedTree, 'escaped');
    const task = loadOrThrow(
      writeMiniTask(
        {
          spec: {
            setup: [`touch ${escaped} || true`],
            verify: { command: `touch ${escaped}; ${TAP}`, results: 'node-test-tap' },
          },
        },
        dir('task'),
      ),
    );
    const grade = await gradeTree(task, fixedTree, { scratchRoot, sandbox });
    expect(grade.outcome).toBe('pass');
    expect(existsSync(escaped)).toBe(false);
    // The same commands outside the sandbox do reach it: the check above can fail.
    await gradeTree(task, fixedTree, { scratchRoot });
    expect(existsSync(escaped)).toBe(true);
    rmSync(escaped);
  });
});
