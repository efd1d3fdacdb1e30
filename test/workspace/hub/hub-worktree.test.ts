import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diff, diffStat } from '../../../src/workspace/git/diff.js';
import { createHub } from '../../../src/workspace/hub/hub.js';
import { fetchResult } from '../../../src/workspace/result.js';
import { addWorktree, commitAll, removeWorktree } from '../../../src/workspace/worktree.js';
import { makeUserRepo, sh, snapshot, tempDir, write } from '../helpers.js';

describe('hub, worktrees and result branch', () => {
  let repo: string;
  let state: string;
  let hub: string;
  let commits: { first: string; second: string };
  const cleanups: Array<() => void> = [];
  beforeEach(() => {
    const a = tempDir();
    const b = tempDir();
    cleanups.push(a.cleanup, b.cleanup);
    repo = a.dir;
    state = b.dir;
    hub = path.join(state, 'runs', 'run-1', 'hub.git');
    commits = makeUserRepo(repo);
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('runs a whole solo flow without touching the user repository', async () => {
    // The user has uncommitted work of every kind; none of it may reach the run or be disturbed.
    write(repo, 'README.md', '# local edit\n');
    write(repo, 'src/staged.js', 'staged\n');
    sh(repo, 'add', 'src/staged.js');
    write(repo, 'scratch.txt', 'untracked\n');
    const before = snapshot(repo);

    const created = await createHub(hub, repo, commits.second);
    expect(created).toEqual({ ok: true, hubPath: hub, created: true });
    expect(sh(hub, 'rev-parse', 'refs/heads/main')).toBe(commits.second);
    expect(sh(hub, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(sh(hub, 'rev-parse', '--is-bare-repository')).toBe('true');

    const wtPath = path.join(state, 'runs', 'run-1', 'worktrees', 'coder-1');
    const wt = await addWorktree(hub, wtPath, 'agent/coder-1', commits.second);
    expect(wt).toEqual({
      ok: true,
      path: wtPath,
      branch: 'agent/coder-1',
      head: commits.second,
      created: true,
    });
    expect(readFileSync(path.join(wtPath, 'README.md'), 'utf8')).toBe('# sample\n');
    expect(existsSync(path.join(wtPath, 'scratch.txt'))).toBe(false);
    expect(existsSync(path.join(wtPath, 'src/staged.js'))).toBe(false);

    expect(await commitAll(wtPath, 'nothing yet')).toEqual({ ok: true, status: 'nothing-to-commit' });
    write(wtPath, 'src/add.js', 'export const add = (a, b) => a + b;\n');
    write(wtPath, 'test/add.test.js', 'ok\n');
    const commit = await commitAll(wtPath, 'Fix add');
    if (!commit.ok || commit.status !== 'committed') throw new Error(JSON.stringify(commit));
    expect(commit.files.sort()).toEqual(['src/add.js', 'test/add.test.js']);
    expect(sh(hub, 'rev-parse', 'refs/heads/agent/coder-1')).toBe(commit.commit);
    expect(sh(hub, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s', commit.commit)).toBe(
      'Colony Agent <agent@colony.local>|Colony Agent <agent@colony.local>|Fix add',
    );

    const stat = await diffStat(hub, commits.second, commit.commit);
    expect(stat).toEqual({
      ok: true,
      files: [
        { path: 'src/add.js', added: 1, deleted: 1 },
        { path: 'test/add.test.js', added: 1, deleted: 0 },
      ],
      added: 2,
      deleted: 1,
    });
    const patch = await diff(hub, commits.second, commit.commit);
    expect(patch.ok && patch.text).toContain('+export const add = (a, b) => a + b;');

    const fetched = await fetchResult(repo, hub, 'agent/coder-1', 'colony/run-1');
    expect(fetched).toEqual({ ok: true, ref: 'refs/heads/colony/run-1', commit: commit.commit });
    expect(sh(repo, 'rev-parse', 'colony/run-1')).toBe(commit.commit);
    expect(sh(repo, 'show', 'colony/run-1:src/add.js')).toBe('export const add = (a, b) => a + b;');
    expect(snapshot(repo)).toEqual(before);
    expect(existsSync(path.join(repo, '.git', 'FETCH_HEAD'))).toBe(false);

    // Fetching again (e.g. after more work) moves the result branch forward.
    write(wtPath, 'more.txt', 'more\n');
    const second = await commitAll(wtPath, 'More');
    const again = await fetchResult(repo, hub, 'agent/coder-1', 'colony/run-1');
    expect(again.ok && second.ok && second.status === 'committed' && again.commit === second.commit).toBe(
      true,
    );
    expect(snapshot(repo)).toEqual(before);

    expect(await removeWorktree(hub, wtPath)).toEqual({ ok: true });
    expect(existsSync(wtPath)).toBe(false);
    // Nothing is deleted: the branch and its commits stay in the hub.
    expect(sh(hub, 'rev-parse', 'refs/heads/agent/coder-1')).toBe(again.ok ? again.commit : '');
  });

  it('hard-links objects into the hub and shares them with every worktree', async () => {
    await createHub(hub, repo, commits.second);
    const objects = path.join(hub, 'objects');
    const linked = readdirSync(objects, { recursive: true, withFileTypes: true }).filter(
      (entry) =>
        entry.isFile() &&
        /^[0-9a-f]{38}$/.test(entry.name) &&
        statSync(path.join(entry.parentPath, entry.name)).nlink > 1,
    );
    expect(linked.length).toBeGreaterThan(0);
    const a = await addWorktree(hub, path.join(state, 'wt', 'a'), 'agent/a', commits.second);
    const b = await addWorktree(hub, path.join(state, 'wt', 'b'), 'agent/b', commits.second);
    expect(a.ok && b.ok).toBe(true);
    for (const name of ['a', 'b']) {
      // A worktree's .git is a file pointing into the hub; it has no object store of its own.
      expect(statSync(path.join(state, 'wt', name, '.git')).isFile()).toBe(true);
      expect(sh(path.join(state, 'wt', name), 'rev-parse', '--git-common-dir')).toBe(hub);
    }
  });

  it('sets hub main to --base, not to the user HEAD, and drops colliding agent/ branches', async () => {
    sh(repo, 'branch', 'agent/coder-1', commits.first);
    const created = await createHub(hub, repo, commits.first);
    expect(created.ok).toBe(true);
    expect(sh(hub, 'rev-parse', 'refs/heads/main')).toBe(commits.first);
    expect(sh(hub, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent/')).toBe('');
    // The user's own branch is untouched.
    expect(sh(repo, 'rev-parse', 'agent/coder-1')).toBe(commits.first);
  });

  it('re-creating the hub after a crash reuses it and keeps landed work on main', async () => {
    await createHub(hub, repo, commits.first);
    sh(hub, 'update-ref', 'refs/heads/main', commits.second);
    const again = await createHub(hub, repo, commits.first);
    expect(again).toEqual({ ok: true, hubPath: hub, created: false });
    expect(sh(hub, 'rev-parse', 'refs/heads/main')).toBe(commits.second);
  });

  it('cleans up a half-made clone left by a dead process', async () => {
    const stale = `${hub}.tmp-999999999-abcd`;
    mkdirSync(stale, { recursive: true });
    writeFileSync(path.join(stale, 'junk'), 'x');
    const created = await createHub(hub, repo, commits.second);
    expect(created.ok && created.created).toBe(true);
    expect(existsSync(stale)).toBe(false);
  });

  it('refuses a hub folder that is not a bare repository, and a missing base commit', async () => {
    mkdirSync(hub, { recursive: true });
    writeFileSync(path.join(hub, 'file.txt'), 'x');
    const result = await createHub(hub, repo, commits.second);
    expect(!result.ok && result.error).toContain('not a bare git repository');
    const other = path.join(state, 'other.git');
    const missing = await createHub(other, repo, 'f'.repeat(40));
    expect(!missing.ok && missing.error).toContain('not in the repository');
    expect(existsSync(other)).toBe(false);
  });

  it('re-adding a worktree after a crash reuses it with its files intact', async () => {
    await createHub(hub, repo, commits.second);
    const wtPath = path.join(state, 'wt', 'coder');
    await addWorktree(hub, wtPath, 'agent/coder', commits.second);
    write(wtPath, 'work-in-progress.txt', 'half done\n');
    write(wtPath, 'README.md', '# edited\n');
    const again = await addWorktree(hub, wtPath, 'agent/coder', commits.first);
    expect(again).toEqual({
      ok: true,
      path: wtPath,
      branch: 'agent/coder',
      head: commits.second,
      created: false,
    });
    expect(readFileSync(path.join(wtPath, 'work-in-progress.txt'), 'utf8')).toBe('half done\n');
    expect(readFileSync(path.join(wtPath, 'README.md'), 'utf8')).toBe('# edited\n');
    const wrong = await addWorktree(hub, wtPath, 'agent/other', commits.second);
    expect(!wrong.ok && wrong.error).toContain('not on agent/other');
  });

  it('re-creates a lost worktree folder from its branch, keeping its commits', async () => {
    await createHub(hub, repo, commits.second);
    const wtPath = path.join(state, 'wt', 'coder');
    await addWorktree(hub, wtPath, 'agent/coder', commits.second);
    write(wtPath, 'done.txt', 'committed work\n');
    const commit = await commitAll(wtPath, 'work');
    rmSync(wtPath, { recursive: true, force: true });
    const again = await addWorktree(hub, wtPath, 'agent/coder', commits.second);
    expect(again.ok && again.created).toBe(true);
    expect(again.ok && commit.ok && commit.status === 'committed' && again.head === commit.commit).toBe(true);
    expect(readFileSync(path.join(wtPath, 'done.txt'), 'utf8')).toBe('committed work\n');
  });

  it('replaces a worktree whose creation was interrupted', async () => {
    await createHub(hub, repo, commits.second);
    const wtPath = path.join(state, 'wt', 'coder');
    await addWorktree(hub, wtPath, 'agent/coder', commits.second);
    // What `git worktree add` leaves while checking out: a lock with reason "initializing".
    writeFileSync(path.join(hub, 'worktrees', 'coder', 'locked'), 'initializing');
    rmSync(path.join(wtPath, 'src'), { recursive: true });
    const again = await addWorktree(hub, wtPath, 'agent/coder', commits.second);
    expect(again.ok && again.created).toBe(true);
    expect(existsSync(path.join(wtPath, 'src', 'add.js'))).toBe(true);
    expect(await commitAll(wtPath, 'none')).toEqual({ ok: true, status: 'nothing-to-commit' });
  });

  it('refuses a folder that is a checkout of another repository', async () => {
    await createHub(hub, repo, commits.second);
    const result = await addWorktree(hub, repo, 'agent/x', commits.second);
    expect(!result.ok && result.error).toContain('is not a worktree of the hub');
    expect(await removeWorktree(hub, repo)).toMatchObject({ ok: false });
    expect(existsSync(path.join(repo, 'README.md'))).toBe(true);
  });

  it('refuses a branch already checked out elsewhere and invalid branch names', async () => {
    await createHub(hub, repo, commits.second);
    await addWorktree(hub, path.join(state, 'wt', 'one'), 'agent/x', commits.second);
    const two = await addWorktree(hub, path.join(state, 'wt', 'two'), 'agent/x', commits.second);
    expect(!two.ok && two.error).toContain('already checked out');
    const bad = await addWorktree(hub, path.join(state, 'wt', 'three'), 'agent/bad..name', commits.second);
    expect(bad).toEqual({ ok: false, error: 'invalid branch name: agent/bad..name' });
  });

  it('creates and commits in many worktrees concurrently', async () => {
    await createHub(hub, repo, commits.second);
    const names = Array.from({ length: 16 }, (_, i) => `agent-${i}`);
    const results = await Promise.all(
      names.map(async (name) => {
        const wtPath = path.join(state, 'wt', name);
        const wt = await addWorktree(hub, wtPath, `agent/${name}`, commits.second);
        if (!wt.ok) return wt.error;
        write(wtPath, `${name}.txt`, `${name}\n`);
        const commit = await commitAll(wtPath, name);
        return commit.ok && commit.status === 'committed' ? 'ok' : JSON.stringify(commit);
      }),
    );
    expect(results).toEqual(names.map(() => 'ok'));
    expect(sh(hub, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent/').split('\n')).toHaveLength(16);
  });

  it('commits without running hooks', async () => {
    await createHub(hub, repo, commits.second);
    const wtPath = path.join(state, 'wt', 'coder');
    await addWorktree(hub, wtPath, 'agent/coder', commits.second);
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit']) {
      writeFileSync(path.join(hub, 'hooks', hook), `#!/bin/sh\ntouch "${path.join(state, hook)}"\nexit 1\n`);
      chmodSync(path.join(hub, 'hooks', hook), 0o755);
    }
    write(wtPath, 'x.txt', 'x\n');
    const commit = await commitAll(wtPath, 'no hooks');
    expect(commit.ok && commit.status).toBe('committed');
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit'])
      expect(existsSync(path.join(state, hook))).toBe(false);
  });

  it('refuses to fetch into the checked-out branch and leaves the user repo unchanged', async () => {
    await createHub(hub, repo, commits.second);
    const wtPath = path.join(state, 'wt', 'coder');
    await addWorktree(hub, wtPath, 'agent/coder', commits.second);
    write(wtPath, 'x.txt', 'x\n');
    await commitAll(wtPath, 'x');
    const before = snapshot(repo);
    const result = await fetchResult(repo, hub, 'agent/coder', 'main');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain('main');
    expect(snapshot(repo)).toEqual(before);
    expect(await fetchResult(repo, hub, 'agent/coder', 'colony/bad..id')).toEqual({
      ok: false,
      error: 'invalid result branch name: colony/bad..id',
    });
    const missing = await fetchResult(repo, hub, 'agent/nope', 'colony/run-x');
    expect(missing.ok).toBe(false);
  });
});

describe('hub excludes', () => {
  it('never commits the temporary file of an interrupted atomic write', async () => {
    const { TEMP_MARKER } = await import('../../../src/tool/atomic-write.js');
    const { dir: root, cleanup } = tempDir();
    try {
      const user = path.join(root, 'user');
      execFileSync('git', ['init', '-q', '-b', 'main', user]);
      execFileSync(
        'sh',
        ['-c', 'echo a > a.txt && git add a.txt && git -c user.name=T -c user.email=t@t commit -qm init'],
        { cwd: user },
      );
      const base = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: user, encoding: 'utf8' }).trim();
      const hub = path.join(root, 'hub.git');
      expect((await createHub(hub, user, base)).ok).toBe(true);
      const wt = await addWorktree(hub, path.join(root, 'wt'), 'agent/x', base);
      if (!wt.ok) throw new Error(wt.error);
      writeFileSync(path.join(wt.path, `.a.txt${TEMP_MARKER}0123abcd`), 'half');
      writeFileSync(path.join(wt.path, 'b.txt'), 'b');
      const committed = await commitAll(wt.path, 'work');
      expect(committed.ok && committed.status === 'committed' && committed.files).toEqual(['b.txt']);
    } finally {
      cleanup();
    }
  });
});
