/**
 * Planting bugs by mutation: the candidate mutants of a source file, and a task planted in a tiny
 * repository that validates (the combined mutation fails its tests, the reverse patch passes), with
 * each bug in a different module and only mutants its tests kill.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/eval/suite/load.js';
import { applyMutants, findMutants } from '../../../src/eval/suite/mutants.js';
import { plantTask } from '../../../src/eval/suite/plant.js';
import { validateTask } from '../../../src/eval/suite/validate.js';
import { gitCheckout } from './fixture.js';

const root = mkdtempSync(path.join(tmpdir(), 'colony-plant-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const VERIFY = { command: 'node --test --test-reporter=tap', results: 'node-test-tap' } as const;

const t = (imports: string, body: string) =>
  `import assert from 'node:assert/strict';\nimport { test } from 'node:test';\n${imports}\n${body}\n`;

/** Three modules, each fully tested, and one untested helper whose mutants all survive. */
const REPO: Record<string, string> = {
  'package.json': '{ "type": "module" }\n',
  'src/clamp.js':
    'export function clamp(x, lo, hi) {\n  if (x < lo) return lo;\n  return x > hi ? hi : x;\n}\n',
  'src/range.js':
    'export function range(n) {\n  const out = [];\n  for (let i = 0; i < n; i++) out.push(i);\n  return out;\n}\n',
  'src/both.js': 'export const both = (a, b) => a && b;\n',
  'src/unused.js': 'export const unused = (x) => (x > 1 ? 2 : 3);\n',
  // One test file: each of the many test runs starts as few processes as it can.
  'test/all.test.js': t(
    "import { clamp } from '../src/clamp.js';\nimport { range } from '../src/range.js';\nimport { both } from '../src/both.js';",
    [
      "test('clamp low', () => assert.equal(clamp(-1, 0, 5), 0));",
      "test('clamp high', () => assert.equal(clamp(9, 0, 5), 5));",
      "test('clamp inside', () => assert.equal(clamp(3, 0, 5), 3));",
      "test('range three', () => assert.deepEqual(range(3), [0, 1, 2]));",
      "test('range empty', () => assert.deepEqual(range(0), []));",
      "test('both true', () => assert.equal(both(true, true), true));",
      "test('both mixed', () => assert.equal(both(true, false), false));",
      "test('both false', () => assert.equal(both(false, true), false));",
    ].join('\n'),
  ),
};

describe('findMutants', () => {
  it('finds comparison, logical, off-by-one and negated-condition mutants, not in types or property names', () => {
    const text =
      'type N = 1;\nconst o = { 2: "x" };\nexport function f(a: number, b: boolean): number {\n  if (a >= 3 && b) return 0;\n  return a === 1 ? 1 : 2;\n}\n';
    const mutants = findMutants(ts, 'src/f.ts', text);
    const shown = mutants.map((m) => `${m.kind} ${m.original} -> ${m.replacement} @${m.line}`);
    expect(shown.sort()).toEqual(
      [
        'comparison >= -> > @4',
        'logical && -> || @4',
        'off-by-one 3 -> 4 @4',
        'negate a >= 3 && b -> !(a >= 3 && b) @4',
        'off-by-one 0 -> 1 @4',
        'comparison === -> !== @5',
        'off-by-one 1 -> 2 @5',
        'off-by-one 1 -> 2 @5',
        'off-by-one 2 -> 3 @5',
        'negate a === 1 -> !(a === 1) @5',
      ].sort(),
    );
    const negate = mutants.find((m) => m.kind === 'negate' && m.line === 4);
    expect(applyMutants(text, negate ? [negate] : [])).toContain('if (!(a >= 3 && b)) return 0;');
  });
});

describe('plantTask', () => {
  it('plants K bugs in K modules that the tests kill, as a task that validates', async () => {
    const repo = gitCheckout(REPO, path.join(root, 'repo'));
    const out = path.join(root, 'task');
    const planted = await plantTask({
      repo,
      out,
      bugs: 3,
      verify: VERIFY,
      seed: 7,
      timeoutS: 60,
      include: ['src'],
    });
    if (!planted.ok) throw new Error(planted.error);
    const { spec, mutants } = planted.value;
    expect(new Set(mutants.map((m) => m.file))).toEqual(
      new Set(['src/clamp.js', 'src/range.js', 'src/both.js']),
    );
    expect(spec).toMatchObject({
      repo: { folder: 'repo' },
      hidden: 'hidden',
      tags: expect.arrayContaining(['planted', 'modules:3']),
    });
    expect(spec.failToPass.length).toBeGreaterThanOrEqual(3);
    expect([...spec.failToPass, ...spec.passToPass].sort()).toEqual([
      'both false',
      'both mixed',
      'both true',
      'clamp high',
      'clamp inside',
      'clamp low',
      'range empty',
      'range three',
    ]);
    for (const m of mutants) expect(spec.goal).toContain(m.file);
    // The agents' repository holds the mutants; the user's repository is unchanged.
    for (const m of mutants)
      expect(readFileSync(path.join(out, 'repo', m.file), 'utf8')).not.toBe(REPO[m.file]);
    expect(readFileSync(path.join(repo, 'src/clamp.js'), 'utf8')).toBe(REPO['src/clamp.js']);
    const task = loadTask(out);
    if (!task.ok) throw new Error(task.error.join('\n'));
    const validation = await validateTask(task.value, { scratchRoot: root });
    expect(validation.problems).toEqual([]);
  });

  it('hides the tests when asked, and the task still validates', async () => {
    const repo = gitCheckout(REPO, path.join(root, 'repo-hidden'));
    const out = path.join(root, 'task-hidden');
    const planted = await plantTask({
      repo,
      out,
      bugs: 1,
      verify: VERIFY,
      seed: 3,
      hideTests: true,
      include: ['src'],
    });
    if (!planted.ok) throw new Error(planted.error);
    expect(existsSync(path.join(out, 'repo', 'test'))).toBe(false);
    expect(existsSync(path.join(out, 'hidden', 'test', 'all.test.js'))).toBe(true);
    const task = loadTask(out);
    if (!task.ok) throw new Error(task.error.join('\n'));
    expect((await validateTask(task.value, { scratchRoot: root })).problems).toEqual([]);
  });

  it('gives up with a reason when there are fewer killable modules than bugs', async () => {
    const repo = gitCheckout(REPO, path.join(root, 'repo-few'));
    const tooMany = await plantTask({
      repo,
      out: path.join(root, 'never'),
      bugs: 9,
      verify: VERIFY,
      include: ['src'],
    });
    expect(tooMany).toEqual({ ok: false, error: '4 source files to mutate; 9 bugs need as many modules' });
    const untested = gitCheckout(
      {
        'package.json': REPO['package.json'] ?? '',
        'src/unused.js': REPO['src/unused.js'] ?? '',
        'test/other.test.js': t('', "test('other', () => {});"),
      },
      path.join(root, 'repo-untested'),
    );
    const survivors = await plantTask({
      repo: untested,
      out: path.join(root, 'never'),
      bugs: 1,
      verify: VERIFY,
    });
    expect(survivors).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^found killed mutants in only 0 of 1 modules within \d+ test runs$/),
    });
    expect(existsSync(path.join(root, 'never'))).toBe(false);
    const broken = await plantTask({
      repo,
      out: path.join(root, 'never2'),
      bugs: 1,
      verify: { ...VERIFY, command: 'echo nothing' },
    });
    expect(broken).toMatchObject({ ok: false, error: expect.stringContaining('before any mutation') });
  });
});
