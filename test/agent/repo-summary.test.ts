/**
 * The repository summary reads a hostile repository: links out of it are shown, not followed; a
 * FIFO is never opened; the tree comes from a git that runs nothing the repository's config names.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderRepoSummary, summariseRepo } from '../../src/agent/repo-summary.js';
import { tempDir } from './tools/helpers.js';

describe('summariseRepo on a hostile repository', () => {
  let root: string;
  let outside: string;
  const cleanups: Array<() => void> = [];
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
  beforeEach(() => {
    const a = tempDir();
    const b = tempDir();
    root = a.dir;
    outside = b.dir;
    cleanups.push(a.cleanup, b.cleanup);
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(outside, 'secret.txt'), 'host-secret-marker\n');
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('shows links out of the repository or into .git as links, and follows links inside it', () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'AGENTS.md'));
    symlinkSync('.git/config', path.join(root, 'README.md'));
    mkdirSync(path.join(root, 'docs'));
    writeFileSync(path.join(root, 'docs/guide.md'), 'be careful\n');
    symlinkSync('docs/guide.md', path.join(root, 'CLAUDE.md'));
    git('add', '-A');
    const summary = summariseRepo(root);
    expect(summary.instructions).toEqual([
      { file: 'AGENTS.md', text: `(a link to ${path.join(outside, 'secret.txt')}, not followed)` },
      { file: 'CLAUDE.md', text: 'be careful\n' },
    ]);
    expect(summary.readmeHead).toBe('(a link to .git/config, not followed)');
    expect(renderRepoSummary(summary)).not.toContain('host-secret-marker');
    expect(renderRepoSummary(summary)).not.toContain('[core]');
  });

  it('never opens a FIFO or a device, and reads a large file only in part', () => {
    execFileSync('mkfifo', [path.join(root, 'README.md')]);
    symlinkSync('/dev/zero', path.join(root, 'CLAUDE.md'));
    writeFileSync(path.join(root, 'AGENTS.md'), 'x'.repeat(1024 * 1024));
    const summary = summariseRepo(root);
    expect(summary.readmeHead).toBe('(a FIFO (named pipe), not read)');
    expect(summary.instructions[0]?.text.length).toBe(8_000);
    expect(summary.instructions[1]).toEqual({
      file: 'CLAUDE.md',
      text: '(a link to /dev/zero, not followed)',
    });
  });

  it("lists the tree with git running no fsmonitor of the repository's config", () => {
    const marker = path.join(outside, 'fsmonitor-ran');
    writeFileSync(path.join(root, 'a.txt'), 'a\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'init');
    git('config', 'core.fsmonitor', `touch ${marker}; true`);
    const summary = summariseRepo(root);
    expect(summary.tree).toEqual(['a.txt']);
    expect(existsSync(marker)).toBe(false);
  });

  it('gives git nothing when .git is a link', () => {
    writeFileSync(path.join(root, 'a.txt'), 'a\n');
    git('add', '-A');
    const moved = path.join(outside, 'moved.git');
    execFileSync('mv', [path.join(root, '.git'), moved]);
    symlinkSync(moved, path.join(root, '.git'));
    expect(summariseRepo(root).tree).toEqual([]);
    rmSync(path.join(root, '.git'));
  });
});
