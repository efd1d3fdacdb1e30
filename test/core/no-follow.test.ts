import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNoFollow, writeNoFollow } from '../../src/core/no-follow.js';

function place() {
  const dir = mkdtempSync(path.join(tmpdir(), 'colony-nofollow-'));
  const root = path.join(dir, 'root');
  const outside = path.join(dir, 'outside');
  mkdirSync(path.join(root, 'a'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret'), 'host secret\n');
  return { root, outside };
}

describe('no-follow file access', () => {
  it('never reads through a link, on the last component or a folder on the way', async () => {
    const { root, outside } = place();
    symlinkSync(path.join(outside, 'secret'), path.join(root, 'a', 'link'));
    symlinkSync(outside, path.join(root, 'dir-link'));
    expect(await readNoFollow(root, 'a/link')).toMatchObject({ ok: false, reason: 'refused' });
    expect(await readNoFollow(root, 'dir-link/secret')).toMatchObject({ ok: false, reason: 'refused' });
    expect(await readNoFollow(root, 'a/none')).toMatchObject({ ok: false, reason: 'absent' });
    expect(await readNoFollow(root, '../outside/secret')).toMatchObject({ ok: false, reason: 'refused' });
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    const { root } = place();
    execFileSync('mkfifo', [path.join(root, 'a', 'fifo')]);
    expect(await readNoFollow(root, 'a/fifo')).toMatchObject({ ok: false, reason: 'refused' });
  });

  it('replaces a link at the target instead of writing through it, and never walks a linked folder', async () => {
    const { root, outside } = place();
    symlinkSync(path.join(outside, 'secret'), path.join(root, 'a', 'link'));
    symlinkSync(outside, path.join(root, 'dir-link'));
    expect(await writeNoFollow(root, 'a/link', 'agent text')).toEqual({ ok: true, value: undefined });
    expect(readFileSync(path.join(outside, 'secret'), 'utf8')).toBe('host secret\n');
    expect(lstatSync(path.join(root, 'a', 'link')).isFile()).toBe(true);
    expect(readFileSync(path.join(root, 'a', 'link'), 'utf8')).toBe('agent text');
    expect(await writeNoFollow(root, 'dir-link/planted', 'x')).toMatchObject({
      ok: false,
      reason: 'refused',
    });
    expect(() => lstatSync(path.join(outside, 'planted'))).toThrow();
  });

  it('makes missing folders and reads back what it wrote', async () => {
    const { root } = place();
    expect((await writeNoFollow(root, 'b/c/d', 'deep')).ok).toBe(true);
    const read = await readNoFollow(root, 'b/c/d');
    expect(read.ok && read.value.toString()).toBe('deep');
  });
});
