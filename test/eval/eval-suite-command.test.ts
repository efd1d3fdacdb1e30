/**
 * `colony eval validate | import-swe-bench | plant` through the CLI's main (in process): the bundled
 * suite validates (exit 0), a broken copy does not (exit 1, the task named), a tiny repository gets a
 * planted task, the SWE-bench fixture imports, and usage errors are exit 2 with what to do.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadTask } from '../../src/eval/suite/load.js';
import { gitCheckout } from './suite/fixture.js';

const BUNDLED = join(import.meta.dirname, '..', '..', 'examples', 'eval-suite');
const root = mkdtempSync(join(tmpdir(), 'colony-eval-suite-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('colony eval validate', () => {
  it('the bundled suite: every task valid, exit 0', async () => {
    const { code, stdout, stderr } = await run(['eval', 'validate', BUNDLED, '--concurrency', '2']);
    expect(code, stderr).toBe(0);
    expect(stdout.match(/^valid {4}\S+/gm)).toHaveLength(9);
    expect(stdout).toContain('all 9 task(s) valid');
  }, 60_000);

  it('a broken copy: exit 1, the invalid task named with its reason', async () => {
    const suite = join(root, 'broken');
    for (const t of ['textkit-slugify', 'ledger-parse-money'])
      cpSync(join(BUNDLED, t), join(suite, t), { recursive: true });
    // The "fix" now changes nothing that matters: the reference no longer passes.
    writeFileSync(join(suite, 'ledger-parse-money', 'reference.patch'), '');
    const { code, stdout } = await run(['eval', 'validate', suite]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^valid {4}textkit-slugify/m);
    expect(stdout).toMatch(/^INVALID {2}ledger-parse-money: reference: /m);
    expect(stdout).toContain('1 of 2 task(s) invalid');
  }, 60_000);

  it('a suite that does not load: exit 1 with the problems', async () => {
    const { code, stderr } = await run(['eval', 'validate', join(root, 'nowhere')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/the suite does not load:\n .*cannot read the suite folder/);
  });
});

describe('colony eval plant', () => {
  it('plants a bug in a tiny repository: a task folder that loads', async () => {
    const repo = gitCheckout({
      'package.json': '{ "type": "module" }\n',
      'src/clamp.js':
        'export function clamp(x, lo, hi) {\n  if (x < lo) return lo;\n  return x > hi ? hi : x;\n}\n',
      'test/clamp.test.js':
        "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { clamp } from '../src/clamp.js';\n" +
        "test('clamp low', () => assert.equal(clamp(-1, 0, 5), 0));\ntest('clamp high', () => assert.equal(clamp(9, 0, 5), 5));\n" +
        "test('clamp inside', () => assert.equal(clamp(3, 0, 5), 3));\n",
    });
    const out = join(root, 'planted');
    const { code, stdout, stderr } = await run([
      'eval',
      'plant',
      '--repo',
      repo,
      '--bugs',
      '1',
      '--verify',
      'node --test --test-reporter=tap',
      '--results',
      'node-test-tap',
      '--out',
      out,
      '--seed',
      '2',
    ]);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^planted 1 bug\(s\) in /);
    const task = loadTask(out);
    if (!task.ok) throw new Error(task.error.join('\n'));
    expect(task.value.spec.failToPass.length).toBeGreaterThan(0);
    expect(existsSync(join(out, 'reference.patch'))).toBe(true);
    rmSync(repo, { recursive: true, force: true });
  }, 60_000);
});

describe('colony eval import-swe-bench', () => {
  it('imports the fixture instances into task folders', async () => {
    const fixture = join(import.meta.dirname, 'suite', 'fixtures', 'swe-bench-mini.jsonl');
    // The fixture leaves base_commit to its test; any full commit id imports.
    const file = join(root, 'instances.jsonl');
    writeFileSync(file, readFileSync(fixture, 'utf8').replaceAll('{{BASE}}', 'a'.repeat(40)));
    const out = join(root, 'imported');
    const args = [
      'eval',
      'import-swe-bench',
      file,
      '--out',
      out,
      '--verify',
      'node --test --test-reporter=tap',
      '--results',
      'node-test-tap',
    ];
    const { code, stdout, stderr } = await run(args);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^2 task\(s\) in /m);
    const spec = JSON.parse(readFileSync(join(out, 'acme__mini-1', 'task.json'), 'utf8'));
    expect(spec.verify).toEqual({ command: 'node --test --test-reporter=tap', results: 'node-test-tap' });
    // Again without --overwrite: refused, nothing written, every problem named.
    const again = await run(args);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/nothing written:\n .*acme__mini-1: exists/);
  });
});

describe('usage errors (exit 2, with what to do)', () => {
  it.each([
    [['eval', 'validate'], /eval validate: missing suite/],
    [['eval', 'validate', 'x', '--concurrency', '0'], /--concurrency must be a positive integer/],
    [['eval', 'import-swe-bench', 'f.jsonl'], /missing --out DIR/],
    [
      ['eval', 'import-swe-bench', 'f.jsonl', '--out', 'o', '--verify', 'npm test'],
      /missing --results FORMAT \(one of node-test-tap, junit-xml, jest-json\)/,
    ],
    [
      ['eval', 'import-swe-bench', 'f', '--out', 'o', '--verify', 'v', '--results', 'xml'],
      /--results must be one of/,
    ],
    [['eval', 'plant', '--repo', 'r'], /missing --bugs K/],
    [['eval', 'plant', '--repo', 'r', '--bugs', 'two'], /--bugs must be a positive integer/],
    [['eval', 'run', '--arms', 'a.json'], /missing --suite DIR/],
    [
      ['eval', 'run', '--suite', 's', '--arms', 'a', '--trials', '2', '--sandbox', 'maybe'],
      /--sandbox must be one of on, auto, off/,
    ],
    [['eval', 'validate', 'x', '--bogus'], /Unknown option '--bogus'/],
  ])('%j', async (argv, message) => {
    const { code, stderr } = await run(argv);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
  });

  it('colony eval --help lists every subcommand', async () => {
    const { code, stdout } = await run(['eval', '--help']);
    expect(code).toBe(0);
    for (const sub of [
      'report DIR',
      'run --suite',
      'validate SUITE',
      'import-swe-bench FILE',
      'plant --repo',
    ])
      expect(stdout).toContain(sub);
    expect(stdout).toMatch(/SIMULATED/);
  });
});
