/**
 * An agent's own repository (src/workspace/agent-repo/agent-repo.ts) through the real bash tool in a real
 * bubblewrap sandbox: the agent commits in its own repository; hub refs and hub config are out of
 * its reach; the files of its git directory that Colony's own git calls read are read-only; its work
 * reaches the hub only when Colony publishes it, and survives the repository's removal.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/agent/tools/bash.js';
import type { Sandbox } from '../../../src/sandbox/sandbox.js';
import {
  type AgentRepo,
  openAgentRepo,
  publishAgentRepo,
  removeAgentRepo,
} from '../../../src/workspace/agent-repo/agent-repo.js';
import { commitAll } from '../../../src/workspace/worktree.js';
import { machineSandbox } from '../../sandbox/helpers.js';
import { agentRepoIn, sh, tempDir, userRepoAndHub, write } from '../helpers.js';

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
    const { hub, base } = await userRepoAndHub(made.dir, { 'a.txt': 'one\n' });
    const repo = agentRepoIn(made.dir, 'ann');
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
    const commit = await agentCommit(repo, { 'a.txt': 'two\n' });
    // The state `git worktree add` leaves for a moment: an admin folder whose HEAD is the null id.
    const admin = path.join(hub, 'worktrees', 'being-added');
    mkdirSync(admin, { recursive: true });
    writeFileSync(path.join(admin, 'HEAD'), `${'0'.repeat(40)}\n`);
    writeFileSync(path.join(admin, 'commondir'), '../..\n');
    writeFileSync(path.join(admin, 'gitdir'), `${path.join(hub, '..', 'wt-being-added', '.git')}\n`);
    // git's connectivity check (a fetch's `rev-list --not --all`) fails in that instant…
    expect(() => sh(hub, 'rev-list', '--all')).toThrow(/bad object worktrees\/being-added\/HEAD/);
    // …publishing reads no worktree HEAD: it works with the admin folder left as it is.
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: commit });
    expect(sh(hub, 'rev-parse', 'agent/ann')).toBe(commit);
  });

  it('copies a new commit into the hub with its whole tree: the hub has every object itself', async () => {
    const { hub, repo } = await setUp();
    const commit = await agentCommit(repo, { 'a.txt': 'two\n', 'src/deep/b.txt': 'bee\n' });
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: commit });
    expect(sh(hub, 'rev-parse', 'agent/ann', 'agent/ann^{tree}')).toBe(
      `${commit}\n${sh(repo.checkout, 'rev-parse', 'HEAD^{tree}')}`,
    );
    // The agent's objects folder goes: what the hub shows is its own copy.
    await removeAgentRepo(repo);
    expect(sh(hub, 'show', 'agent/ann:src/deep/b.txt')).toBe('bee');
    expect(sh(hub, 'fsck', '--connectivity-only', '--no-dangling')).toBe('');
  });

  it('publishes with nothing new to copy: again, and back to a commit the hub already has', async () => {
    const { hub, base, repo } = await setUp();
    const commit = await agentCommit(repo, { 'a.txt': 'two\n' });
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: commit });
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: commit });
    expect(sh(hub, 'rev-parse', 'agent/ann')).toBe(commit);
    // The agent goes back to main's commit: the branch follows (forced, as a `+HEAD:` fetch was).
    sh(repo.checkout, 'reset', '--quiet', '--hard', base);
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: base });
    expect(sh(hub, 'rev-parse', 'agent/ann')).toBe(base);
  });

  it('copies only the new objects of a commit on top of a published one', async () => {
    const { hub, repo } = await setUp();
    const first = await agentCommit(repo, { 'a.txt': 'two\n', 'b.txt': 'bee\n' });
    expect((await publishAgentRepo(hub, repo)).ok).toBe(true);
    // git rewrites (freshens) an object it is given again, even one it has: date the first ones back.
    const old = sh(hub, 'rev-list', '--objects', `main..${first}`)
      .split('\n')
      .map((line) => looseObject(hub, line.slice(0, 40)));
    expect(old).toHaveLength(4); // commit, root tree, two blobs
    const longAgo = new Date('2001-01-01T00:00:00Z');
    for (const file of old) utimesSync(file, longAgo, longAgo);
    const before = looseCount(hub);
    const second = await agentCommit(repo, { 'c.txt': 'sea\n' });
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: second });
    expect(looseCount(hub)).toBe(before + 3); // commit, root tree, c.txt
    expect(old.map((file) => statSync(file).mtime.getTime())).toEqual(old.map(() => longAgo.getTime()));
    expect(sh(hub, 'show', 'agent/ann:c.txt')).toBe('sea');
  });

  it("refuses corrupt objects from the agent's objects folder; the hub branch stays", async () => {
    const { hub, repo } = await setUp();
    const good = await agentCommit(repo, { 'a.txt': 'two\n' });
    expect((await publishAgentRepo(hub, repo)).ok).toBe(true);
    const refused = async (why: string, reason: string) => {
      const published = await publishAgentRepo(hub, repo);
      expect(published, why).toMatchObject({ ok: false });
      if (!published.ok)
        expect(published.error).toMatch(`could not copy agent/ann into the hub: ${reason}: `);
      expect(sh(hub, 'rev-parse', 'agent/ann'), why).toBe(good);
    };
    // A blob whose bytes are not the ones its name says.
    const withBlob = await agentCommit(repo, { 'b.txt': 'bee\n' });
    const blob = sh(repo.checkout, 'rev-parse', `${withBlob}:b.txt`);
    replaceLoose(repo.gitDir, blob, 'blob', 'not bee\n');
    await refused('blob content does not match its name', 'the hub refused its objects');
    expect(() => sh(hub, 'cat-file', '-e', blob)).toThrow();
    // A commit whose tree is nowhere.
    const author = 'Colony Agent <agent@colony.local> 1700000000 +0000';
    const missingTree = 'e'.repeat(40);
    const noTree = writeLoose(
      repo.gitDir,
      'commit',
      `tree ${missingTree}\nparent ${good}\nauthor ${author}\ncommitter ${author}\n\nno tree\n`,
    );
    setBranch(repo, noTree);
    await refused('commit without its tree', 'could not read its objects');
    // A commit whose bytes are another commit's (one the hub does not have either).
    const tree = sh(repo.checkout, 'rev-parse', `${good}^{tree}`);
    const commitText = (message: string) =>
      `tree ${tree}\nparent ${good}\nauthor ${author}\ncommitter ${author}\n\n${message}\n`;
    const named = writeLoose(repo.gitDir, 'commit', commitText('named'));
    replaceLoose(repo.gitDir, named, 'commit', commitText('other bytes'));
    setBranch(repo, named);
    await refused('commit content does not match its name', 'could not read its HEAD');
    expect(() => sh(hub, 'cat-file', '-e', named)).toThrow();
  });

  it("publishes whatever the agent did to its own main: what to leave out comes from the hub's refs", async () => {
    const { hub, repo } = await setUp();
    const main = path.join(repo.gitDir, 'refs', 'heads', 'main');
    writeFileSync(main, 'garbage\n');
    const first = await agentCommit(repo, { 'a.txt': 'two\n' });
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: first });
    // Its main at its own new commit: were that left out, nothing would be copied.
    const second = await agentCommit(repo, { 'b.txt': 'bee\n' });
    writeFileSync(main, `${second}\n`);
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: second });
    expect(sh(hub, 'show', 'agent/ann:b.txt')).toBe('bee');
    expect(sh(hub, 'fsck', '--connectivity-only', '--no-dangling')).toBe('');
  });

  it('publishes into a hub with thousands of refs, loose and packed', async () => {
    const { hub, base, repo } = await setUp();
    const names = Array.from({ length: 1000 }, (_, i) => [
      `refs/heads/agent/ann-${i}`,
      `refs/colony/mr/${i}`,
      `refs/colony/landed/${i}`,
    ]).flat();
    // (No reflogs for these: 3,000 more files would only slow the test down.)
    const create = names.map((name) => `create ${name} ${base}\n`).join('');
    gitInput(hub, ['-c', 'core.logAllRefUpdates=false', 'update-ref', '--stdin'], create);
    const refs = () => sh(hub, 'for-each-ref', '--format=%(refname) %(objectname)').split('\n');
    const others = refs().filter((line) => !line.startsWith('refs/heads/agent/ann '));
    expect(others.length).toBeGreaterThan(3000);
    const first = await agentCommit(repo, { 'a.txt': 'two\n' });
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: first });
    sh(hub, 'pack-refs', '--all');
    const second = await agentCommit(repo, { 'b.txt': 'bee\n' });
    expect(await publishAgentRepo(hub, repo)).toEqual({ ok: true, value: second });
    expect(sh(hub, 'rev-parse', 'agent/ann^{tree}')).toBe(sh(repo.checkout, 'rev-parse', 'HEAD^{tree}'));
    expect(refs()).toEqual([...others, `refs/heads/agent/ann ${second}`].sort());
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

  it("reopened by a new process, drops a dead process's git locks, keeps this process's, and follows no planted link", async () => {
    const { dir, hub, base, repo, bash } = await setUp();
    // What a kill -9 during `git add` leaves: index.lock and a branch ref lock, from before this process.
    const past = new Date(Date.now() - 3_600_000 - performance.now());
    const stale = [path.join(repo.gitDir, 'index.lock'), path.join(repo.gitDir, 'refs/heads/agent/ann.lock')];
    for (const file of stale) {
      writeFileSync(file, '');
      utimesSync(file, past, past);
    }
    // The agent plants HEAD.lock as a link to a file of the host: removing it must not touch the file.
    const hostFile = path.join(dir, 'host-secret.txt');
    writeFileSync(hostFile, 'keep me\n');
    await bash(`ln -s '${hostFile}' "$(git rev-parse --git-dir)/HEAD.lock"; echo planted`);
    utimesSync(hostFile, past, past);
    execFileSync('touch', ['-h', '-d', past.toISOString(), path.join(repo.gitDir, 'HEAD.lock')]);
    const reopened = await openAgentRepo({ hubPath: hub, repo, startCommit: base });
    expect(reopened).toMatchObject({ ok: true, value: { created: false } });
    for (const file of stale) expect(existsSync(file)).toBe(false);
    expect(existsSync(path.join(repo.gitDir, 'HEAD.lock'))).toBe(false);
    expect(readFileSync(hostFile, 'utf8')).toBe('keep me\n');
    write(repo.checkout, 'c.txt', 'after the crash\n');
    expect(await commitAll(repo.checkout, 'work')).toMatchObject({ ok: true, status: 'committed' });

    // A lock made while this process runs may be a live git's: it stays.
    const live = path.join(repo.gitDir, 'index.lock');
    writeFileSync(live, '');
    await openAgentRepo({ hubPath: hub, repo, startCommit: base });
    expect(existsSync(live)).toBe(true);
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

async function agentCommit(repo: AgentRepo, files: Record<string, string>): Promise<string> {
  for (const [name, content] of Object.entries(files)) write(repo.checkout, name, content);
  const committed = await commitAll(repo.checkout, 'work');
  if (!committed.ok || committed.status !== 'committed') throw new Error('nothing committed');
  return committed.commit;
}

function looseObject(gitDir: string, id: string): string {
  return path.join(gitDir, 'objects', id.slice(0, 2), id.slice(2));
}

function looseCount(gitDir: string): number {
  return Number(/^count: (\d+)$/m.exec(sh(gitDir, 'count-objects', '-v'))?.[1]);
}

/** Writes a loose object (as git would) and returns its name. */
function writeLoose(gitDir: string, type: string, content: string): string {
  const bytes = Buffer.concat([Buffer.from(`${type} ${Buffer.byteLength(content)}\0`), Buffer.from(content)]);
  const id = createHash('sha1').update(bytes).digest('hex');
  replaceLoose(gitDir, id, type, content);
  return id;
}

/** Puts `content` under the name `id`, whatever its real name is. */
function replaceLoose(gitDir: string, id: string, type: string, content: string): void {
  const file = looseObject(gitDir, id);
  rmSync(file, { force: true });
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, deflateSync(`${type} ${Buffer.byteLength(content)}\0${content}`));
}

/** The agent's branch set straight in its git directory (as its own git could). */
function setBranch(repo: AgentRepo, commit: string): void {
  writeFileSync(path.join(repo.gitDir, 'refs', 'heads', ...repo.branch.split('/')), `${commit}\n`);
}

function gitInput(cwd: string, args: string[], input: string): void {
  execFileSync('git', args, { cwd, input, env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null' } });
}
