/** The batched diff-tree of a landed batch lists each commit's files (an empty commit too). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { changedFilesOfCommits, commitTree } from '../../../src/workspace/integration/hub-git.js';
import { createUserRepo } from '../../helpers/user-repo.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function bareHub(): { hub: string; base: string } {
  const repo = createUserRepo({ 'README.md': '# x\n', 'src/a.txt': 'a\n' }, 'colony-commit-object-');
  const hub = path.join(mkdtempSync(path.join(tmpdir(), 'colony-commit-object-hub-')), 'hub.git');
  dirs.push(repo.dir, path.dirname(hub));
  execFileSync('git', ['clone', '-q', '--bare', repo.dir, hub]);
  return { hub, base: repo.base };
}

const git = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, ...env } }).trim();

describe('the files of a landed batch', () => {
  it('lists the files of many commits in one diff-tree, an empty commit included', async () => {
    const { hub, base } = bareHub();
    const blob = (text: string) =>
      execFileSync('git', ['hash-object', '-w', '--stdin'], {
        cwd: hub,
        input: text,
        encoding: 'utf8',
      }).trim();
    const treeWith = (files: Record<string, string>) => {
      const index = path.join(path.dirname(hub), `index-${Math.random()}`);
      const env = { GIT_INDEX_FILE: index };
      git(hub, ['read-tree', base], env);
      for (const [file, text] of Object.entries(files))
        git(hub, ['update-index', '--add', '--cacheinfo', `100644,${blob(text)},${file}`], env);
      return git(hub, ['write-tree'], env);
    };
    const first = await commitTree(
      hub,
      treeWith({ 'src/b.txt': 'b\n', 'src/c.txt': 'c\n' }),
      base,
      'b c',
      'p1',
    );
    if (!first.ok) throw new Error(first.error);
    const second = await commitTree(
      hub,
      treeWith({ 'src/b.txt': 'b\n', 'src/c.txt': 'c\n', 'd.txt': 'd\n' }),
      first.commit,
      'd',
      'p2',
    );
    if (!second.ok) throw new Error(second.error);
    const empty = await commitTree(
      hub,
      git(hub, ['rev-parse', `${second.commit}^{tree}`]),
      second.commit,
      'nothing',
      'p3',
    );
    if (!empty.ok) throw new Error(empty.error);
    const files = await changedFilesOfCommits(hub, [first.commit, second.commit, empty.commit]);
    expect(files.get(first.commit)).toEqual(['src/b.txt', 'src/c.txt']);
    expect(files.get(second.commit)).toEqual(['d.txt']);
    expect(files.get(empty.commit)).toEqual([]);
  });
});
