/**
 * The file tools act on where a path really leads: a link to the checkout's `.git` or into a nested
 * repository's `.git` folder is refused by every tool, and a link swapped in after the check (the
 * race a concurrent process would try) is never followed by the open or the atomic write.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveInside } from '../../../src/agent/paths.js';
import { createEditTool } from '../../../src/agent/tools/edit.js';
import { openRegularFile } from '../../../src/agent/tools/file-kind.js';
import { createGrepTool } from '../../../src/agent/tools/grep.js';
import { createLsTool } from '../../../src/agent/tools/ls.js';
import { createReadTool } from '../../../src/agent/tools/read.js';
import { createWriteTool } from '../../../src/agent/tools/write.js';
import { writeFileAtomic } from '../../../src/tool/atomic-write.js';
import { tempDir } from './helpers.js';

const DOT_GIT = 'gitdir: /colony/repos/agent.git\n';

describe('file tools and the real path', () => {
  let root: string;
  let outside: string;
  const cleanups: Array<() => void> = [];
  beforeEach(() => {
    const a = tempDir();
    const b = tempDir();
    root = a.dir;
    outside = b.dir;
    cleanups.push(a.cleanup, b.cleanup);
    writeFileSync(path.join(root, '.git'), DOT_GIT);
    mkdirSync(path.join(root, 'sub/.git'), { recursive: true });
    writeFileSync(path.join(root, 'sub/.git/config'), '[core]\n');
    writeFileSync(path.join(root, 'sub/a.txt'), 'needle\n');
    symlinkSync('.git', path.join(root, 'g'));
    symlinkSync('g', path.join(root, 'gg'));
    symlinkSync('sub/.git', path.join(root, 'nested'));
    writeFileSync(path.join(outside, 'host.txt'), 'host needle\n');
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('refuses .git, nested .git folders and links to either, in every tool', async () => {
    const paths = ['.git', 'g', 'gg', 'sub/.git', 'sub/.git/config', 'nested', 'nested/config', 'nested/new'];
    for (const p of paths) {
      const resolved = resolveInside(root, p);
      expect(resolved.ok, p).toBe(false);
      if (!resolved.ok) expect(resolved.error, p).toMatch(/^refusing to touch git's own data/);
      const results = [
        await createWriteTool(root).run({ path: p, content: 'gitdir: /host\n' }, {}),
        await createEditTool(root).run({ path: p, old: 'gitdir', new: 'x' }, {}),
        await createReadTool(root).run({ path: p }, {}),
        await createLsTool(root).run({ path: p }, {}),
        await createGrepTool(root).run({ pattern: 'gitdir|core', path: p }, {}),
      ];
      for (const result of results) {
        expect(result.isError, `${p}: ${result.content}`).toBe(true);
        expect(result.content, p).toContain("refusing to touch git's own data");
      }
    }
    expect(readFileSync(path.join(root, '.git'), 'utf8')).toBe(DOT_GIT);
    expect(readFileSync(path.join(root, 'sub/.git/config'), 'utf8')).toBe('[core]\n');
    expect(readdirSync(path.join(root, 'sub/.git'))).toEqual(['config']);
    // The message names where the link leads.
    const viaLink = await createWriteTool(root).run({ path: 'gg', content: 'x' }, {});
    expect(viaLink.content).toContain('gg (it leads to .git)');
  });

  it('still lists the root and searches it, without .git files or folders', async () => {
    const ls = await createLsTool(root).run({}, {});
    expect(ls.content.split('\n')).toEqual(['g -> .git', 'gg -> g', 'nested -> sub/.git', 'sub/']);
    const lsSub = await createLsTool(root).run({ path: 'sub' }, {});
    expect(lsSub.content).toBe('a.txt');
    const grep = await createGrepTool(root).run({ pattern: 'gitdir|core|needle' }, {});
    expect(grep.content).toBe('sub/a.txt:1: needle');
    // Given the real path: through an inner link, the real names.
    symlinkSync('sub', path.join(root, 'inner'));
    const viaInner = await createGrepTool(root).run({ pattern: 'needle', path: 'inner' }, {});
    expect(viaInner.content).toBe('sub/a.txt:1: needle');
    // A folder named like git's but not `.git` is the project's.
    expect((await createWriteTool(root).run({ path: '.github/x.yml', content: 'a' }, {})).isError).toBe(
      false,
    );
  });

  it('opens the checked real path without following a link put there after the check', async () => {
    writeFileSync(path.join(root, 'file.txt'), 'inside\n');
    const resolved = resolveInside(root, 'file.txt');
    if (!resolved.ok) throw new Error(resolved.error);
    // The swap a concurrent process would make between the check and the open.
    rmSync(path.join(root, 'file.txt'));
    symlinkSync(path.join(outside, 'host.txt'), path.join(root, 'file.txt'));
    const opened = await openRegularFile(resolved);
    expect(opened).toMatchObject({ ok: false, kind: 'refused' });
    if (!opened.ok && opened.kind === 'refused') expect(opened.error).toContain('symbolic link appeared');
  });

  it('confirms on the descriptor where an open file is (a parent folder swapped for a link)', async () => {
    mkdirSync(path.join(root, 'dir'));
    writeFileSync(path.join(root, 'dir/file.txt'), 'inside\n');
    const resolved = resolveInside(root, 'dir/file.txt');
    if (!resolved.ok) throw new Error(resolved.error);
    renameSync(path.join(root, 'dir'), path.join(root, 'dir-moved'));
    mkdirSync(path.join(outside, 'dir'));
    writeFileSync(path.join(outside, 'dir/file.txt'), 'host\n');
    symlinkSync(path.join(outside, 'dir'), path.join(root, 'dir'));
    const opened = await openRegularFile(resolved);
    expect(opened).toMatchObject({ ok: false, kind: 'refused' });
    if (!opened.ok && opened.kind === 'refused') expect(opened.error).toContain('outside the worktree');
  });

  it('the atomic write refuses a link at its target and never writes through it', async () => {
    const target = path.join(root, 'file.txt');
    symlinkSync(path.join(outside, 'host.txt'), target);
    await expect(writeFileAtomic(target, 'evil')).rejects.toMatchObject({ code: 'ELOOP' });
    expect(readFileSync(path.join(outside, 'host.txt'), 'utf8')).toBe('host needle\n');
    expect(readdirSync(root).filter((name) => name.includes('colony-tmp'))).toEqual([]);
  });

  it('the atomic write confirms its temporary file landed in the checked folder', async () => {
    mkdirSync(path.join(root, 'dir'));
    const target = path.join(root, 'dir', 'new.txt');
    // The checked folder replaced by a link out before the write.
    rmSync(path.join(root, 'dir'), { recursive: true });
    symlinkSync(outside, path.join(root, 'dir'));
    await expect(writeFileAtomic(target, 'evil')).rejects.toMatchObject({ code: 'ELOOP' });
    expect(readdirSync(outside)).toEqual(['host.txt']);
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false);
  });
});
