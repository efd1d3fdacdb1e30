/**
 * Colony's own commit objects (commit-object.ts) are byte for byte what `git commit-tree` makes: the
 * same id for the same fields, readable and fsck-clean; and the batched diff-tree lists each commit's
 * files (an empty commit too).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCommitObject } from '../../../src/workspace/integration/commit-object.js';
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

describe('commit objects written by Colony', () => {
  it('have the id git commit-tree gives the same fields, and pass fsck', async () => {
    const { hub, base } = bareHub();
    const tree = git(hub, ['rev-parse', `${base}^{tree}`]);
    const time = 1_767_000_000;
    for (const message of ['one line', 'subject\n\nbody\nColony-MR: 3\n', 'ünïcödé ✓ — "quotes"']) {
      const ours = await writeCommitObject(hub, {
        tree,
        parent: base,
        author: { name: 'peer-7', email: 'peer-7@colony.local' },
        committer: { name: 'Colony Integration', email: 'integration@colony.local' },
        time,
        message,
      });
      const theirs = git(hub, ['commit-tree', tree, '-p', base, '-m', message], {
        GIT_AUTHOR_NAME: 'peer-7',
        GIT_AUTHOR_EMAIL: 'peer-7@colony.local',
        GIT_AUTHOR_DATE: `${time} +0000`,
        GIT_COMMITTER_NAME: 'Colony Integration',
        GIT_COMMITTER_EMAIL: 'integration@colony.local',
        GIT_COMMITTER_DATE: `${time} +0000`,
      });
      expect(ours, JSON.stringify(message)).toBe(theirs);
    }
    // Written again: the same id, nothing broken.
    const made = await commitTree(hub, tree, base, 'via commitTree', 'peer-1');
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(git(hub, ['cat-file', '-t', made.commit])).toBe('commit');
    expect(git(hub, ['log', '-1', '--format=%an <%ae> | %cn | %s', made.commit])).toBe(
      'peer-1 <peer-1@colony.local> | Colony Integration | via commitTree',
    );
    git(hub, ['update-ref', 'refs/heads/check', made.commit]);
    git(hub, ['fsck', '--strict', '--no-dangling']);
  });

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
