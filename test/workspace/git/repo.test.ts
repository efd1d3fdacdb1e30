import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectUserRepo } from '../../../src/workspace/git/repo.js';
import { makeUserRepo, sh, snapshot, tempDir, write } from '../helpers.js';

describe('inspectUserRepo', () => {
  const cleanups: Array<() => void> = [];
  const dir = (): string => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    return t.dir;
  };
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('describes a clean repository at HEAD', async () => {
    const repo = dir();
    const { second } = makeUserRepo(repo);
    const result = await inspectUserRepo(repo);
    expect(result).toEqual({
      ok: true,
      repo: { topLevel: repo, baseRef: 'HEAD', baseCommit: second, currentBranch: 'main', dirty: [] },
    });
  });

  it('resolves --base refs and finds the top level from a subfolder', async () => {
    const repo = dir();
    const { first } = makeUserRepo(repo);
    sh(repo, 'tag', 'v1', first);
    const result = await inspectUserRepo(path.join(repo, 'src'), 'v1');
    expect(result.ok && result.repo.baseCommit).toBe(first);
    expect(result.ok && result.repo.topLevel).toBe(repo);
    const short = await inspectUserRepo(repo, first.slice(0, 10));
    expect(short.ok && short.repo.baseCommit).toBe(first);
    const relative = await inspectUserRepo(repo, 'HEAD~1');
    expect(relative.ok && relative.repo.baseCommit).toBe(first);
  });

  it('lists uncommitted changes without touching the index', async () => {
    const repo = dir();
    makeUserRepo(repo);
    write(repo, 'README.md', '# changed\n');
    write(repo, 'new.txt', 'untracked\n');
    write(repo, 'src/staged.js', 'staged\n');
    sh(repo, 'add', 'src/staged.js');
    // Make the index stat-dirty so a refreshing `git status` would rewrite it.
    writeFileSync(path.join(repo, 'src/mul.js'), 'export const mul = (a, b) => a * b;\n');
    const before = snapshot(repo);
    const result = await inspectUserRepo(repo);
    expect(result.ok && [...result.repo.dirty].sort()).toEqual([
      ' M README.md',
      '?? new.txt',
      'A  src/staged.js',
    ]);
    expect(snapshot(repo)).toEqual(before);
  });

  it('reports a folder that is not a git repository', async () => {
    const plain = dir();
    expect(await inspectUserRepo(plain)).toEqual({ ok: false, error: `not a git repository: ${plain}` });
    const missing = path.join(plain, 'nope');
    const result = await inspectUserRepo(missing);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain(`not a git repository: ${missing}`);
  });

  it('reports an empty repository and an unknown ref', async () => {
    const empty = dir();
    sh(empty, 'init', '--quiet');
    const result = await inspectUserRepo(empty);
    expect(!result.ok && result.error).toContain('no commits yet');
    const repo = dir();
    makeUserRepo(repo);
    expect(await inspectUserRepo(repo, 'no-such-branch')).toEqual({
      ok: false,
      error: `unknown base ref "no-such-branch" in ${repo}`,
    });
    expect((await inspectUserRepo(repo, '--output=/tmp/x')).ok).toBe(false);
  });

  it('reports a bare repository', async () => {
    const bare = dir();
    sh(bare, 'init', '--quiet', '--bare');
    const result = await inspectUserRepo(bare);
    expect(!result.ok && result.error).toContain('bare');
  });
});
