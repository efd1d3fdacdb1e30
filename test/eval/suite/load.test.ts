/**
 * Loading tasks and suites: a valid folder loads; every problem is reported as data naming the file
 * and the field, all at once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSuite, loadTask } from '../../../src/eval/suite/load.js';
import { repoKeyOf } from '../../../src/eval/suite/task.js';
import { miniSpec, writeMiniTask } from './fixture.js';

const root = mkdtempSync(path.join(tmpdir(), 'colony-load-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const dir = path.join(root, `t${n++}`);
  mkdirSync(dir);
  return dir;
};

function errorsOf(dir: string): string[] {
  const loaded = loadTask(dir);
  if (loaded.ok) throw new Error('expected the task to be refused');
  return loaded.error;
}

describe('loadTask', () => {
  it('loads a valid task with its reference fix', () => {
    const dir = writeMiniTask({}, fresh());
    const loaded = loadTask(dir);
    expect(loaded).toMatchObject({
      ok: true,
      value: { dir, spec: miniSpec(), referencePatch: path.join(dir, 'reference.patch') },
    });
  });

  it('loads a task without reference.patch (it can be graded, not validated)', () => {
    const loaded = loadTask(writeMiniTask({ reference: null }, fresh()));
    expect(loaded).toMatchObject({ ok: true, value: { referencePatch: null } });
  });

  it('names the file and each wrong field', () => {
    const dir = writeMiniTask(
      { rawSpec: { ...miniSpec(), verify: { command: 'x', results: 'tap' }, timeoutS: 0, failToPass: [] } },
      fresh(),
    );
    const errors = errorsOf(dir);
    const file = path.join(dir, 'task.json');
    expect(errors.every((e) => e.startsWith(`${file}: `))).toBe(true);
    expect(errors.some((e) => e.includes('verify.results:'))).toBe(true);
    expect(errors.some((e) => e.includes('timeoutS:'))).toBe(true);
    expect(errors.some((e) => e.includes('failToPass:'))).toBe(true);
  });

  it('refuses a version it does not know with one clear line', () => {
    const errors = errorsOf(writeMiniTask({ rawSpec: { ...miniSpec(), v: 2, extra: true } }, fresh()));
    expect(errors).toEqual([expect.stringMatching(/task\.json: v: format version 2; this Colony reads 1$/)]);
  });

  it('refuses unknown fields, a bad repo, paths out of the folder and a short commit id', () => {
    const dir = fresh();
    writeMiniTask({ rawSpec: { ...miniSpec(), hidden: '../elsewhere', typo: 1 } }, dir);
    const errors = errorsOf(dir);
    expect(errors.some((e) => e.includes('hidden:'))).toBe(true);
    expect(errors.some((e) => e.includes('typo'))).toBe(true);
    expect(errorsOf(writeMiniTask({ rawSpec: { ...miniSpec(), repo: { url: 'x' } } }, fresh()))).toEqual([
      expect.stringContaining('repo: must be { "folder": PATH } or { "git": URL_OR_PATH, "commit": SHA }'),
    ]);
    expect(
      errorsOf(
        writeMiniTask({ spec: { repo: { git: 'https://example.com/r.git', commit: 'abc123' } } }, fresh()),
      ),
    ).toEqual([expect.stringContaining('repo.commit: must be a full commit id')]);
  });

  it('checks the files it names and the test lists', () => {
    const dir = writeMiniTask(
      {
        spec: {
          repo: { folder: 'nope' },
          hidden: { patch: 'hidden.patch' },
          passToPass: ['add adds', 'x', 'x'],
        },
      },
      fresh(),
    );
    const errors = errorsOf(dir).map((e) => e.slice(path.join(dir, 'task.json').length + 2));
    expect(errors).toEqual([
      'repo.folder: nope does not exist',
      'hidden.patch: hidden.patch does not exist',
      'passToPass: also in failToPass: add adds',
      'passToPass: listed twice: x',
    ]);
  });

  it('reports a missing or broken task.json', () => {
    expect(errorsOf(fresh())).toEqual([expect.stringMatching(/task\.json: missing$/)]);
    const dir = fresh();
    writeFileSync(path.join(dir, 'task.json'), '{ "v": 1,');
    expect(errorsOf(dir)).toEqual([expect.stringContaining('task.json: not valid JSON')]);
  });
});

describe('loadSuite', () => {
  it('loads the task folders, named by suite.json, skipping _ and . folders', () => {
    const suite = fresh();
    writeMiniTask({ spec: { id: 'one' } }, path.join(suite, 'one'));
    writeMiniTask({ spec: { id: 'two', tags: [] } }, path.join(suite, 'two'));
    mkdirSync(path.join(suite, '_notes'));
    mkdirSync(path.join(suite, '.cache'));
    writeFileSync(path.join(suite, 'suite.json'), JSON.stringify({ v: 1, name: 'mine' }));
    const loaded = loadSuite(suite);
    if (!loaded.ok) throw new Error(loaded.error.join('\n'));
    expect(loaded.value.name).toBe('mine');
    expect(loaded.value.tasks.map((t) => t.spec.id)).toEqual(['one', 'two']);
    expect(loaded.value.tasks.map((t) => repoKeyOf(t.spec))).toEqual(['mini', 'two']);
  });

  it('reports every broken task, duplicate ids and a folder that is not a task', () => {
    const suite = fresh();
    writeMiniTask({ spec: { id: 'same' } }, path.join(suite, 'a'));
    writeMiniTask({ spec: { id: 'same' } }, path.join(suite, 'b'));
    writeMiniTask({ spec: { timeoutS: -1 } }, path.join(suite, 'c'));
    mkdirSync(path.join(suite, 'd'));
    writeFileSync(path.join(suite, 'suite.json'), JSON.stringify({ v: 1 }));
    const loaded = loadSuite(suite);
    if (loaded.ok) throw new Error('expected the suite to be refused');
    const rel = loaded.error.map((e) => path.relative(suite, e));
    expect(rel).toEqual([
      expect.stringMatching(/^suite\.json: name: /),
      expect.stringMatching(/^b\/task\.json: id: "same" is also the id of a$/),
      expect.stringMatching(/^c\/task\.json: timeoutS: /),
      'd/task.json: missing',
    ]);
  });

  it('refuses an empty suite', () => {
    expect(loadSuite(fresh())).toMatchObject({
      ok: false,
      error: [expect.stringContaining('no task folders')],
    });
  });
});
