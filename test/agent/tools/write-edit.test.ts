import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditTool } from '../../../src/agent/tools/edit.js';
import { createWriteTool } from '../../../src/agent/tools/write.js';
import { TEMP_MARKER } from '../../../src/tool/atomic-write.js';
import { runNodeAs, unprivilegedUser } from '../../helpers/unprivileged.js';
import { tempDir } from './helpers.js';

const REPO_ROOT = path.join(import.meta.dirname, '..', '..', '..');

describe('write and edit tools', () => {
  let root: string;
  let outside: string;
  const cleanups: Array<() => void> = [];
  beforeEach(() => {
    const a = tempDir();
    const b = tempDir();
    root = a.dir;
    outside = b.dir;
    cleanups.push(a.cleanup, b.cleanup);
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('write creates folders and files, and overwrites', async () => {
    const tool = createWriteTool(root);
    const created = await tool.run({ path: 'src/deep/new.ts', content: 'a\nb\n' }, {});
    expect(created).toEqual({ isError: false, content: 'Created src/deep/new.ts (4 bytes, 2 lines)' });
    expect(readFileSync(path.join(root, 'src/deep/new.ts'), 'utf8')).toBe('a\nb\n');
    const over = await tool.run({ path: 'src/deep/new.ts', content: 'z' }, {});
    expect(over.content).toContain('Overwrote');
    expect(readFileSync(path.join(root, 'src/deep/new.ts'), 'utf8')).toBe('z');
    expect(tool.mutates).toBe(true);
  });

  it('write refuses escapes and leaves nothing outside', async () => {
    symlinkSync(outside, path.join(root, 'out'));
    const tool = createWriteTool(root);
    for (const p of ['../evil.txt', path.join(outside, 'evil.txt'), 'out/evil.txt', 'out/sub/evil.txt']) {
      const result = await tool.run({ path: p, content: 'x' }, {});
      expect(result.isError, p).toBe(true);
    }
    expect(existsSync(path.join(outside, 'evil.txt'))).toBe(false);
    expect(existsSync(path.join(outside, 'sub'))).toBe(false);
  });

  it('write and edit refuse to touch .git', async () => {
    writeFileSync(path.join(root, '.git'), 'gitdir: /somewhere\n');
    const write = await createWriteTool(root).run({ path: '.git', content: 'x' }, {});
    expect(write.isError).toBe(true);
    expect(write.content).toContain("git's own data");
    expect(
      (await createWriteTool(root).run({ path: '.git/hooks/pre-commit', content: 'x' }, {})).isError,
    ).toBe(true);
    expect((await createEditTool(root).run({ path: '.git', old: 'somewhere', new: 'x' }, {})).isError).toBe(
      true,
    );
    expect(readFileSync(path.join(root, '.git'), 'utf8')).toBe('gitdir: /somewhere\n');
    expect(
      (await createWriteTool(root).run({ path: '.github/workflows/ci.yml', content: 'x' }, {})).isError,
    ).toBe(false);
  });

  it('write rejects invalid arguments', async () => {
    const result = await createWriteTool(root).run({ path: 'a.txt' }, {});
    expect(result.isError).toBe(true);
    expect(result.content).toContain('content');
  });

  it('edit replaces one unique match, keeping $ patterns literal', async () => {
    writeFileSync(path.join(root, 'a.ts'), 'const a = 1;\nconst b = 2;\n');
    const result = await createEditTool(root).run(
      { path: 'a.ts', old: 'const b = 2;', new: 'const b = "$&";' },
      {},
    );
    expect(result).toEqual({ isError: false, content: 'Edited a.ts: replaced 1 occurrence at line 2' });
    expect(readFileSync(path.join(root, 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = "$&";\n');
  });

  it('edit reports not found and ambiguous matches with line numbers, changing nothing', async () => {
    const original = 'x = 1\ny = 2\nx = 1\nz\nx = 1\n';
    writeFileSync(path.join(root, 'a.py'), original);
    const tool = createEditTool(root);
    const missing = await tool.run({ path: 'a.py', old: 'w = 3', new: 'w = 4' }, {});
    expect(missing.isError).toBe(true);
    expect(missing.content).toContain('not found');
    const ambiguous = await tool.run({ path: 'a.py', old: 'x = 1', new: 'x = 9' }, {});
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.content).toContain('occurs 3 times');
    expect(ambiguous.content).toContain('lines 1, 3, 5');
    expect(readFileSync(path.join(root, 'a.py'), 'utf8')).toBe(original);
  });

  it('edit reports missing files, escapes and bad arguments', async () => {
    const tool = createEditTool(root);
    expect((await tool.run({ path: 'nope', old: 'a', new: 'b' }, {})).content).toContain('file not found');
    writeFileSync(path.join(outside, 'f.txt'), 'a');
    const escaped = await tool.run({ path: '../f.txt', old: 'a', new: 'b' }, {});
    expect(escaped.isError).toBe(true);
    expect(readFileSync(path.join(outside, 'f.txt'), 'utf8')).toBe('a');
    const empty = await tool.run({ path: 'f.txt', old: '', new: 'b' }, {});
    expect(empty.isError).toBe(true);
    expect(empty.content).toContain('old');
  });
});

describe('write and edit replace files atomically', () => {
  let root: string;
  const cleanups: Array<() => void> = [];
  beforeEach(() => {
    const a = tempDir();
    root = a.dir;
    cleanups.push(a.cleanup);
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  const tempFiles = (dir: string) => readdirSync(dir).filter((name) => name.includes(TEMP_MARKER));

  it('keeps the mode of an existing file and leaves no temporary files', async () => {
    const file = path.join(root, 'run.sh');
    writeFileSync(file, '#!/bin/sh\necho old\n');
    chmodSync(file, 0o751);
    expect(
      (await createWriteTool(root).run({ path: 'run.sh', content: '#!/bin/sh\necho new\n' }, {})).isError,
    ).toBe(false);
    expect(statSync(file).mode & 0o7777).toBe(0o751);
    expect((await createEditTool(root).run({ path: 'run.sh', old: 'new', new: 'newer' }, {})).isError).toBe(
      false,
    );
    expect(statSync(file).mode & 0o7777).toBe(0o751);
    expect(readFileSync(file, 'utf8')).toBe('#!/bin/sh\necho newer\n');
    expect(await createWriteTool(root).run({ path: 'sub/new.txt', content: 'x' }, {})).toMatchObject({
      isError: false,
    });
    const umask = process.umask();
    expect(statSync(path.join(root, 'sub/new.txt')).mode & 0o777).toBe(0o666 & ~umask);
    expect(tempFiles(root)).toEqual([]);
    expect(tempFiles(path.join(root, 'sub'))).toEqual([]);
  });

  it('writes and edits files whose names are as long as the file system allows (255 bytes)', async () => {
    // 255 bytes, ASCII and multi-byte: the temporary file's name must not grow past the limit.
    for (const name of ['a'.repeat(255), `${'é'.repeat(125)}x.txt`]) {
      expect(Buffer.byteLength(name)).toBeGreaterThan(230);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
      const write = await createWriteTool(root).run({ path: name, content: 'one\n' }, {});
      expect(write, name).toMatchObject({ isError: false });
      const edit = await createEditTool(root).run({ path: name, old: 'one', new: 'two' }, {});
      expect(edit, name).toMatchObject({ isError: false });
      expect(readFileSync(path.join(root, name), 'utf8')).toBe('two\n');
    }
    expect(tempFiles(root)).toEqual([]);
  });

  it('writes through a symbolic link inside the worktree, keeping the link', async () => {
    mkdirSync(path.join(root, 'real'));
    writeFileSync(path.join(root, 'real/target.txt'), 'one two\n');
    symlinkSync('real/target.txt', path.join(root, 'link.txt'));
    symlinkSync('real', path.join(root, 'dirlink'));
    expect((await createWriteTool(root).run({ path: 'link.txt', content: 'one three\n' }, {})).isError).toBe(
      false,
    );
    expect(lstatSync(path.join(root, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(root, 'real/target.txt'), 'utf8')).toBe('one three\n');
    expect(
      (await createEditTool(root).run({ path: 'link.txt', old: 'three', new: 'four' }, {})).isError,
    ).toBe(false);
    expect(lstatSync(path.join(root, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(root, 'real/target.txt'), 'utf8')).toBe('one four\n');
    expect((await createWriteTool(root).run({ path: 'dirlink/other.txt', content: 'o' }, {})).isError).toBe(
      false,
    );
    expect(readFileSync(path.join(root, 'real/other.txt'), 'utf8')).toBe('o');
    expect([...tempFiles(root), ...tempFiles(path.join(root, 'real'))]).toEqual([]);
  });

  // Root may write anything: as root the tools run in a child process as an unprivileged test user.
  it('refuses a read-only file, as before, leaving it and no temporary file', () => {
    const user = unprivilegedUser();
    const file = path.join(root, 'ro.txt');
    writeFileSync(file, 'keep');
    chmodSync(file, 0o444);
    if (user) chownSync(root, user.uid, user.gid);
    const built = (name: string) =>
      pathToFileURL(path.join(REPO_ROOT, 'dist/src/agent/tools', `${name}.js`)).href;
    if (!existsSync(new URL(built('write')))) throw new Error('dist/ is missing: run `npm run build` first');
    const out = runNodeAs(
      user,
      `import { createWriteTool } from ${JSON.stringify(built('write'))};
       import { createEditTool } from ${JSON.stringify(built('edit'))};
       const root = ${JSON.stringify(root)};
       const w = await createWriteTool(root).run({ path: 'ro.txt', content: 'x' }, {});
       const e = await createEditTool(root).run({ path: 'ro.txt', old: 'keep', new: 'x' }, {});
       console.log(JSON.stringify({ write: w.isError, edit: e.isError }));`,
      root,
    );
    expect(JSON.parse(out)).toEqual({ write: true, edit: true });
    expect(readFileSync(file, 'utf8')).toBe('keep');
    expect(tempFiles(root)).toEqual([]);
  });

  it('never lets a concurrent reader see an empty or partial file', async () => {
    const file = path.join(root, 'big.txt');
    const versions = ['a', 'b'].map((c) => `${c.repeat(4 * 1024 * 1024)}\n`);
    writeFileSync(file, versions[1] ?? '');
    const tool = createWriteTool(root);
    let reads = 0;
    const bad: number[] = [];
    for (let i = 0; i < 6; i++) {
      let done = false;
      const writing = tool.run({ path: 'big.txt', content: versions[i % 2] ?? '' }, {}).then((r) => {
        done = true;
        return r;
      });
      while (!done) {
        const seen = await readFile(file, 'utf8');
        reads++;
        if (!versions.includes(seen)) bad.push(seen.length);
      }
      expect((await writing).isError).toBe(false);
    }
    expect(reads).toBeGreaterThan(6);
    expect(bad).toEqual([]);
    expect(tempFiles(root)).toEqual([]);
  });
});
