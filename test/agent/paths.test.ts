import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveInside } from '../../src/agent/paths.js';
import { tempDir } from './tools/helpers.js';

describe('resolveInside', () => {
  let root: string;
  let outside: string;
  let cleanups: Array<() => void>;

  beforeEach(() => {
    const a = tempDir();
    const b = tempDir();
    root = a.dir;
    outside = b.dir;
    cleanups = [a.cleanup, b.cleanup];
    mkdirSync(path.join(root, 'src'));
    writeFileSync(path.join(root, 'src', 'a.ts'), 'x');
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  });
  afterEach(() => {
    for (const cleanup of cleanups) cleanup();
  });

  it('resolves relative paths inside the root', () => {
    expect(resolveInside(root, 'src/a.ts')).toEqual({
      ok: true,
      abs: path.join(root, 'src/a.ts'),
      rel: 'src/a.ts',
      real: path.join(root, 'src/a.ts'),
      realRoot: root,
    });
    expect(resolveInside(root, './src/../src/a.ts')).toMatchObject({ ok: true, rel: 'src/a.ts' });
    expect(resolveInside(root, '.')).toMatchObject({ ok: true, rel: '.', abs: root });
    expect(resolveInside(root, '')).toMatchObject({ ok: true, rel: '.' });
  });

  it('allows absolute paths inside the root and names starting with two dots', () => {
    expect(resolveInside(root, path.join(root, 'src/a.ts'))).toMatchObject({ ok: true, rel: 'src/a.ts' });
    expect(resolveInside(root, '..hidden')).toMatchObject({ ok: true, rel: '..hidden' });
  });

  it('allows new files in new folders', () => {
    expect(resolveInside(root, 'new/deep/file.txt')).toMatchObject({ ok: true, rel: 'new/deep/file.txt' });
  });

  it('refuses .. escapes and absolute paths outside', () => {
    for (const p of ['../x', 'src/../../x', '..', '/etc/passwd', path.join(outside, 'secret.txt')]) {
      const result = resolveInside(root, p);
      expect(result.ok, p).toBe(false);
      if (!result.ok) expect(result.error).toContain('outside the worktree');
    }
  });

  it('refuses symlink escapes, including new files under a linked folder', () => {
    symlinkSync(outside, path.join(root, 'link'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'src', 'secret-link'));
    for (const p of ['link', 'link/secret.txt', 'link/new/file.txt', 'src/secret-link']) {
      const result = resolveInside(root, p);
      expect(result.ok, p).toBe(false);
      if (!result.ok) expect(result.error).toContain('symbolic link');
    }
  });

  it('allows symlinks that stay inside, and refuses dangling ones', () => {
    symlinkSync('src', path.join(root, 'inner'));
    expect(resolveInside(root, 'inner/a.ts')).toMatchObject({ ok: true, rel: 'inner/a.ts' });
    symlinkSync(path.join(outside, 'missing.txt'), path.join(root, 'dangling'));
    expect(resolveInside(root, 'dangling').ok).toBe(false);
  });

  it('works when the root itself is reached through a symlink', () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const linkedRoot = path.join(dir, 'wt');
    symlinkSync(root, linkedRoot);
    expect(resolveInside(linkedRoot, 'src/a.ts')).toMatchObject({ ok: true, rel: 'src/a.ts' });
    expect(resolveInside(linkedRoot, path.join(root, 'src/a.ts'))).toMatchObject({
      ok: true,
      rel: 'src/a.ts',
    });
    expect(resolveInside(linkedRoot, '../x').ok).toBe(false);
  });
});
