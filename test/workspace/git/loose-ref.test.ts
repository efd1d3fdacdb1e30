/**
 * Refs and objects read from a git directory's files (src/workspace/git/loose-ref.ts), checked against
 * what git itself says of the same repository.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isLooseObject, readRefFiles } from '../../../src/workspace/git/loose-ref.js';
import { sh, tempDir, write } from '../helpers.js';

describe('ref files', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  function repoWithRefs() {
    const made = tempDir('colony-refs-');
    cleanup = made.cleanup;
    sh(made.dir, 'init', '--quiet', '--initial-branch=main');
    write(made.dir, 'a.txt', 'a\n');
    sh(made.dir, 'add', '-A');
    sh(made.dir, 'commit', '--quiet', '-m', 'one');
    const one = sh(made.dir, 'rev-parse', 'HEAD');
    sh(made.dir, 'branch', 'packed');
    sh(made.dir, 'tag', '-a', '-m', 'annotated', 'v1');
    sh(made.dir, 'pack-refs', '--all');
    write(made.dir, 'a.txt', 'b\n');
    sh(made.dir, 'commit', '--quiet', '-am', 'two');
    // main is loose again (and also in packed-refs, with its old commit): the loose file wins.
    return {
      dir: made.dir,
      gitDir: path.join(made.dir, '.git'),
      one,
      two: sh(made.dir, 'rev-parse', 'HEAD'),
    };
  }

  it('reads a loose ref before packed-refs, a packed one, and says absent only when neither has it', async () => {
    const { gitDir, one, two } = repoWithRefs();
    expect(await readRefFiles(gitDir, 'refs/heads/main')).toEqual({ kind: 'found', id: two });
    expect(await readRefFiles(gitDir, 'refs/heads/packed')).toEqual({ kind: 'found', id: one });
    expect(await readRefFiles(gitDir, 'refs/heads/pack')).toEqual({ kind: 'absent' });
    expect(await readRefFiles(gitDir, 'refs/heads/nobody')).toEqual({ kind: 'absent' });
  });

  it('leaves to git what it cannot be sure of: an annotated tag, a symbolic or half-written ref file', async () => {
    const { gitDir } = repoWithRefs();
    expect(await readRefFiles(gitDir, 'refs/tags/v1')).toEqual({ kind: 'unknown' });
    writeFileSync(path.join(gitDir, 'refs', 'heads', 'symbolic'), 'ref: refs/heads/main\n');
    expect(await readRefFiles(gitDir, 'refs/heads/symbolic')).toEqual({ kind: 'unknown' });
    writeFileSync(path.join(gitDir, 'refs', 'heads', 'half'), 'abc');
    expect(await readRefFiles(gitDir, 'refs/heads/half')).toEqual({ kind: 'unknown' });
    // A folder where a ref file would be: not ENOENT, so not "absent".
    mkdirSync(path.join(gitDir, 'refs', 'heads', 'folder', 'x'), { recursive: true });
    expect(await readRefFiles(gitDir, 'refs/heads/folder')).toEqual({ kind: 'unknown' });
  });

  it('without packed-refs, a missing loose file is an absent ref', async () => {
    const made = tempDir('colony-refs-');
    cleanup = made.cleanup;
    sh(made.dir, 'init', '--quiet', '--initial-branch=main');
    expect(await readRefFiles(path.join(made.dir, '.git'), 'refs/heads/main')).toEqual({ kind: 'absent' });
  });

  it('tells a loose object from a packed or missing one', () => {
    const { dir, gitDir, one, two } = repoWithRefs();
    expect(isLooseObject(gitDir, two)).toBe(true);
    sh(dir, 'repack', '-a', '-d', '-q');
    sh(dir, 'prune-packed');
    expect(sh(dir, 'cat-file', '-t', two)).toBe('commit');
    expect(isLooseObject(gitDir, two)).toBe(false);
    expect(isLooseObject(gitDir, one.replace(/^./, one[0] === '0' ? '1' : '0'))).toBe(false);
    expect(isLooseObject(gitDir, 'not-an-id')).toBe(false);
  });
});
