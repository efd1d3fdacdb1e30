/**
 * The SWE-bench importer, offline: a small instance file (JSON lines, test lists JSON-encoded as in the
 * dataset, or already decoded) becomes task folders that load, and whose tasks validate when the
 * repository is a local git source and the verify command fits the repository.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/eval/suite/load.js';
import { importSweBench, parseSweBenchInstances, taskIdOf } from '../../../src/eval/suite/swe-bench.js';
import { validateTask } from '../../../src/eval/suite/validate.js';
import { gitCheckout, MINI_REPO } from './fixture.js';

const root = mkdtempSync(path.join(tmpdir(), 'colony-swe-bench-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const FIXTURE = readFileSync(path.join(import.meta.dirname, 'fixtures', 'swe-bench-mini.jsonl'), 'utf8');
const VERIFY = { command: 'node --test --test-reporter=tap', results: 'node-test-tap' } as const;

/** The fixture pointed at a local repository (the instances' `repo` is fetched from there). */
function localFixture(): { text: string; upstream: string; base: string } {
  const upstream = gitCheckout(MINI_REPO, path.join(root, `upstream-${Math.random().toString(36).slice(2)}`));
  const base = readFileSync(path.join(upstream, '.git', 'refs', 'heads', 'main'), 'utf8').trim();
  return { text: FIXTURE.replaceAll('{{BASE}}', base), upstream, base };
}

describe('parseSweBenchInstances', () => {
  it('reads JSON lines and a JSON array, with encoded or decoded test lists', () => {
    const { text, base } = localFixture();
    const lines = parseSweBenchInstances(text);
    if (!lines.ok) throw new Error(lines.error.join('\n'));
    expect(lines.value.map((i) => [i.instance_id, i.FAIL_TO_PASS, i.base_commit])).toEqual([
      ['acme__mini-1', ['add adds'], base],
      ['acme__mini-2', ['add adds'], base],
    ]);
    const array = parseSweBenchInstances(JSON.stringify(lines.value));
    expect(array).toEqual(lines);
  });

  it('names the entry and field of every problem', () => {
    const good = JSON.parse(localFixture().text.split('\n')[0] ?? '') as Record<string, unknown>;
    const text = [
      JSON.stringify({ ...good, FAIL_TO_PASS: '["unclosed' }),
      '{ not json',
      JSON.stringify({ ...good, base_commit: 'abc', patch: undefined }),
    ].join('\n');
    const parsed = parseSweBenchInstances(text, 'x.jsonl');
    expect(parsed).toEqual({
      ok: false,
      error: [
        expect.stringMatching(/^x\.jsonl:2: not valid JSON/),
        'x.jsonl:1: FAIL_TO_PASS: must be a JSON list of test names',
        'x.jsonl:3: base_commit: must be a full commit id',
        expect.stringMatching(/^x\.jsonl:3: patch: /),
      ],
    });
    expect(parseSweBenchInstances('{"a": 1}', 'x.json')).toMatchObject({
      ok: false,
      error: expect.arrayContaining([
        expect.stringContaining('x.json:1: instance_id'),
        expect.stringContaining('x.json:1: PASS_TO_PASS'),
      ]),
    });
    expect(parseSweBenchInstances('[1', 'y.json')).toMatchObject({
      ok: false,
      error: [expect.stringContaining('y.json: not valid JSON')],
    });
    expect(parseSweBenchInstances('', 'z')).toEqual({ ok: false, error: ['z: no instances'] });
  });

  it('makes folder-safe task ids', () => {
    expect(taskIdOf('django__django-11099')).toBe('django__django-11099');
    expect(taskIdOf('org/repo#12')).toBe('org_repo_12');
    expect(taskIdOf('_x')).toBe('i_x');
  });
});

describe('importSweBench', () => {
  it('writes task folders that load: git source, goal, hidden patch, reference, lists, tags', async () => {
    const { text, base } = localFixture();
    const out = path.join(root, 'out-a');
    const imported = await importSweBench(text, out, {
      verify: VERIFY,
      withHints: true,
      setup: ['npm ci'],
      tags: ['js'],
    });
    if (!imported.ok) throw new Error(imported.error.join('\n'));
    expect(imported.value.tasks.map((t) => path.basename(t))).toEqual(['acme__mini-1', 'acme__mini-2']);
    const first = loadTask(path.join(out, 'acme__mini-1'));
    if (!first.ok) throw new Error(first.error.join('\n'));
    expect(first.value.spec).toEqual({
      v: 1,
      id: 'acme__mini-1',
      repo: { git: 'https://github.com/acme/mini.git', commit: base },
      goal: 'add(2, 3) returns -1.\n\nIt should add.\n\nHints:\nLook at src/math.js.',
      setup: ['npm ci'],
      verify: VERIFY,
      hidden: { patch: 'hidden.patch' },
      failToPass: ['add adds'],
      passToPass: ['double doubles'],
      timeoutS: 1800,
      tags: ['swe-bench', 'repo:acme/mini', 'version:1.0', 'js'],
    });
    expect(first.value.referencePatch).toBe(path.join(out, 'acme__mini-1', 'reference.patch'));
    expect(readFileSync(path.join(out, 'acme__mini-1', 'hidden.patch'), 'utf8')).toContain(
      'test/grading/add.test.js',
    );
    const second = loadTask(path.join(out, 'acme__mini-2'));
    expect(second).toMatchObject({
      ok: true,
      value: { spec: { passToPass: ['double doubles'], goal: expect.not.stringContaining('Hints') } },
    });
  });

  it('refuses to write over existing task folders unless asked to', async () => {
    const { text } = localFixture();
    const out = path.join(root, 'out-b');
    mkdirSync(path.join(out, 'acme__mini-2'), { recursive: true });
    const refused = await importSweBench(text, out, { verify: VERIFY });
    expect(refused).toEqual({ ok: false, error: [expect.stringContaining('acme__mini-2: exists')] });
    expect(loadTask(path.join(out, 'acme__mini-1')).ok).toBe(false);
    expect((await importSweBench(text, out, { verify: VERIFY, overwrite: true })).ok).toBe(true);
  });

  it('imports tasks that validate against their repository at base_commit', async () => {
    const { text, upstream } = localFixture();
    const out = path.join(root, 'out-c');
    const imported = await importSweBench(text, out, {
      verify: VERIFY,
      repoUrl: () => upstream,
      timeoutS: 60,
    });
    if (!imported.ok) throw new Error(imported.error.join('\n'));
    const task = loadTask(path.join(out, 'acme__mini-1'));
    if (!task.ok) throw new Error(task.error.join('\n'));
    const result = await validateTask(task.value, { scratchRoot: root });
    expect(result.problems).toEqual([]);
    expect(result.start?.checks.map((c) => c.status)).toEqual(['fail', 'pass']);
  });
});
