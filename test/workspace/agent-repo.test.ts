/**
 * An agent's own repository (src/workspace/agent-repo.ts) through the real bash tool in a real
 * bubblewrap sandbox: the agent commits in its own repository; hub refs and hub config are out of
 * its reach; the files of its git directory that Colony's own git calls read are read-only; its work
 * reaches the hub only when Colony publishes it, and survives the repository's removal.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBashTool } from '../../src/agent/tools/bash.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import {
  type AgentRepo,
  openAgentRepo,
  publishAgentRepo,
  removeAgentRepo,
} from '../../src/workspace/agent-repo.js';
import { createHub } from '../../src/workspace/hub.js';
import { commitAll } from '../../src/workspace/worktree.js';
import { machineSandbox } from '../sandbox/helpers.js';
import { sh, tempDir, write } from './helpers.js';

describe("an agent's own repository", () => {
  let sandbox: Sandbox;
  let cleanup = () => {};
  beforeAll(async () => {
    sandbox = await machineSandbox();
  });
  afterEach(() => cleanup());

  async function setUp() {
    const made = tempDir('colony-agent-repo-');
    cleanup = made.cleanup;
    const user = path.join(made.dir, 'user');
    sh(made.dir, 'init', '--quiet', '--initial-branch=main', user);
    write(user, 'a.txt', 'one\n');
    sh(user, 'add', '-A');
    sh(user, 'commit', '--quiet', '-m', 'base');
    const base = sh(user, 'rev-parse', 'HEAD');
    const hub = path.join(made.dir, 'run', 'hub.git');
    const created = await createHub(hub, user, base);
    if (!created.ok) throw new Error(created.error);
    const repo: AgentRepo = {
      checkout: path.join(made.dir, 'run', 'worktrees', 'ann'),
      gitDir: path.join(made.dir, 'run', 'repos', 'ann.git'),
      branch: 'agent/ann',
    };
    const opened = await openAgentRepo({ hubPath: hub, repo, startCommit: base });
    if (!opened.ok) throw new Error(opened.error);
    const bash = async (command: string) =>
      (await createBashTool(repo.checkout, { sandbox }).run({ command }, {})).content;
    return { dir: made.dir, hub, base, repo, bash, created: opened.value.created };
  }

  it('is a checkout with its git directory outside it, borrowing the hub objects; reopening reuses it', async () => {
    const { hub, base, repo, created } = await setUp();
    expect(created).toBe(true);
    expect(readFileSync(path.join(repo.checkout, 'a.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(path.join(repo.checkout, '.git'), 'utf8').trim()).toBe(`gitdir: ${repo.gitDir}`);
    expect(readFileSync(path.join(repo.gitDir, 'objects', 'info', 'alternates'), 'utf8').trim()).toBe(
      path.join(hub, 'objects'),
    );
    expect(sh(repo.checkout, 'rev-parse', 'HEAD', 'main')).toBe(`${base}\n${base}`);
    expect(sh(repo.checkout, 'status', '--porcelain')).toBe('');
    // The hub has no agent branch until Colony publishes one.
    expect(sh(hub, 'for-each-ref', 'refs/heads/agent/')).toBe('');
    const again = await openAgentRepo({ hubPath: hub, repo, startCommit: base });
    expect(again).toMatchObject({ ok: true, value: { created: false, head: base } });
  });

  it('lets the agent commit in its sandbox; the hub sees the commit only once Colony publishes it', async () => {
    const { hub, repo, bash } = await setUp();
    const out = await bash(
      'echo two > a.txt && git add -A && git commit -q -m "agent commit" && git log --format=%s -1',
    );
    expect(out).toContain('agent commit');
    const head = sh(repo.checkout, 'rev-parse', 'HEAD');
    expect(sh(repo.checkout, 'log', '-1', '--format=%an <%ae>')).toBe('Colony Agent <agent@colony.local>');
    expect(sh(hub, 'for-each-ref', 'refs/heads/agent/')).toBe('');
    const published = await publishAgentRepo(hub, repo);
    expect(published).toEqual({ ok: true, value: head });
    expect(sh(hub, 'rev-parse', 'agent/ann')).toBe(head);
  });

  it('publishes while the hub is adding a worktree (its HEAD briefly the null id), as git worktree add does', async () => {
    const { hub, repo } = await setUp();
    write(repo.checkout, 'a.txt', 'two\n');
    const committed = await commitAll(repo.checkout, 'two');
    if (!committed.ok || committed.status !== 'committed') throw new Error('nothing committed');
    // The state `git worktree add` leaves for a moment: an admin folder whose HEAD is the null id.
    const admin = path.join(hub, 'worktrees', 'being-added');
    mkdirSync(admin, { recursive: true });
    writeFileSync(path.join(admin, 'HEAD'), `${'0'.repeat(40)}\n`);
    writeFileSync(path.join(admin, 'commondir'), '../..\n');
    writeFileSync(path.join(admin, 'gitdir'), `${path.join(hub, '..', 'wt-being-added', '.git')}\n`);
    // git itself fails in that instant…
    expect(() => sh(hub, 'rev-list', '--all')).toThrow(/bad object worktrees\/being-added\/HEAD/);
    // …and the worktree is complete 150 ms later: publishing rides the window out.
    const done = setTimeout(() => rmSync(admin, { recursive: true, force: true }), 150);
    try {
      const published = await publishAgentRepo(hub, repo);
      expect(published).toEqual({ ok: true, value: committed.commit });
      expect(sh(hub, 'rev-parse', 'agent/ann')).toBe(committed.commit);
    } finally {
      clearTimeout(done);
    }
  });

  it("keeps hub refs and config out of the agent's reach: update-ref, config writes and hooks fail inside", async () => {
    const { dir, hub, base, repo, bash } = await setUp();
    const hubConfig = readFileSync(path.join(hub, 'config'), 'utf8');
    const marker = path.join(dir, 'ran-outside');
    const out = await bash(
      [
        `ls ${hub}/refs 2>&1 | head -1`,
        `git --git-dir=${hub} update-ref refs/heads/main HEAD 2>&1 | head -1`,
        `git config core.fsmonitor "touch ${marker}" 2>&1 | head -1`,
        `git config filter.evil.clean "touch ${marker}" 2>&1 | head -1`,
        `echo '* filter=evil' > .gitattributes`,
        `echo "touch ${marker}" > ${repo.gitDir}/hooks/pre-commit 2>&1 | head -1`,
        `echo "gitdir: ${hub}" > .git 2>&1 | head -1`,
        `echo /elsewhere > ${repo.gitDir}/objects/info/alternates 2>&1 | head -1`,
        'echo done',
      ].join('; '),
    );
    expect(out).toMatch(/No such file or directory/);
    expect(out).toMatch(/could not write config file/);
    expect(out).toMatch(/hooks\/pre-commit: Read-only file system/);
    expect(out).toContain('done');
    expect(sh(hub, 'rev-parse', 'main')).toBe(base);
    expect(readFileSync(path.join(hub, 'config'), 'utf8')).toBe(hubConfig);
    expect(readFileSync(path.join(repo.gitDir, 'config'), 'utf8')).not.toMatch(/fsmonitor|filter/);
    expect(readFileSync(path.join(repo.checkout, '.git'), 'utf8').trim()).toBe(`gitdir: ${repo.gitDir}`);
    // Colony's own git calls on the repository (commit, publish) run nothing the agent wrote.
    write(repo.checkout, 'b.txt', 'new\n');
    const committed = await commitAll(repo.checkout, 'colony commit');
    expect(committed).toMatchObject({ ok: true, status: 'committed' });
    expect((await publishAgentRepo(hub, repo)).ok).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(sh(hub, 'show', 'agent/ann:b.txt')).toBe('new');
  });

  it("never commits an atomic write's temporary file that a crash left behind", async () => {
    const { repo } = await setUp();
    write(repo.checkout, 'src/.a.js.colony-tmp-0123456789ab', 'half\n');
    write(repo.checkout, 'src/a.js', 'whole\n');
    const committed = await commitAll(repo.checkout, 'work');
    expect(committed).toMatchObject({ ok: true, status: 'committed', files: ['src/a.js'] });
  });

  it('after removal, reopening checks the published branch out again', async () => {
    const { hub, base, repo, bash } = await setUp();
    await bash('echo kept > k.txt && git add -A && git commit -q -m keep');
    const published = await publishAgentRepo(hub, repo);
    if (!published.ok) throw new Error(published.error);
    await removeAgentRepo(repo);
    expect(existsSync(repo.checkout) || existsSync(repo.gitDir)).toBe(false);
    const reopened = await openAgentRepo({ hubPath: hub, repo, startCommit: base });
    expect(reopened).toMatchObject({ ok: true, value: { created: true, head: published.value } });
    expect(readFileSync(path.join(repo.checkout, 'k.txt'), 'utf8')).toBe('kept\n');
  });
});
