/**
 * Lazy agent checkouts (src/workspace/agent-repo/lazy-checkout.ts) on real git and a real event log: a new
 * checkout holds the top-level files only; the agent's file tools bring in what they touch, bash
 * and grep the whole tree; and whatever the agent changed, however, is what its commit holds — no
 * file it never saw goes missing from its branch.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolsForProfile } from '../../../src/agent/profiles.js';
import type { Store } from '../../../src/store/index.js';
import type { Tool } from '../../../src/tool/types.js';
import { isLazy, MAX_LAZY_PATHS, sparsePattern } from '../../../src/workspace/agent-repo/lazy-checkout.js';
import { syncWorktree } from '../../../src/workspace/integration/sync.js';
import { type AgentWorkspace, RunWorkspace } from '../../../src/workspace/run-workspace.js';
import { commitAll, commitChanges } from '../../../src/workspace/worktree.js';
import { openTestStore, testRunId } from '../../helpers/db.js';
import { createUserRepo } from '../../helpers/user-repo.js';
import { sh, write } from '../helpers.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

const FILES: Record<string, string> = {
  'README.md': '# lazy\n',
  'package.json': '{}\n',
  'src/a.ts': 'export const a = 1;\n',
  'src/b.ts': 'export const b = 2;\n',
  'src/deep/c.ts': 'export const c = 3;\n',
  'docs/guide.md': 'guide\n',
};

async function lazyAgent(options: { setup?: string } = {}) {
  const user = createUserRepo(FILES, 'colony-lazy-');
  const runDir = mkdtempSync(join(tmpdir(), 'colony-lazy-run-'));
  const runId = testRunId();
  const make = () =>
    new RunWorkspace({
      runId,
      runDir,
      userRepo: user.dir,
      baseCommit: user.base,
      log: store.log,
      ...(options.setup ? { setup: options.setup } : {}),
    });
  const ws = make();
  const opened = await ws.open();
  if (!opened.ok) throw new Error(opened.error);
  const got = await ws.forAgent('peer-1', { lazy: true });
  if (!got.ok) throw new Error(got.error);
  const built = toolsForProfile('coder', got.value.worktree, { fill: got.value.fill });
  if (!built.ok) throw new Error(built.error);
  const tool = (name: string) => built.tools.find((t) => t.spec.name === name) as Tool;
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await tool(name).run(args, {});
    if (result.isError) throw new Error(`${name}: ${result.content}`);
    return result.content;
  };
  return { ws, make, agent: got.value, repo: ws.repoOf('peer-1'), call, user };
}

/** Every file of a commit's tree, with its content (read in the hub, not in the checkout). */
function treeOf(hub: string, commit: string): Record<string, string> {
  const names = execFileSync('git', ['ls-tree', '-r', '--name-only', commit], { cwd: hub, encoding: 'utf8' })
    .trim()
    .split('\n');
  return Object.fromEntries(
    names.map((name) => [
      name,
      execFileSync('git', ['show', `${commit}:${name}`], { cwd: hub, encoding: 'utf8' }),
    ]),
  );
}

function checkoutFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === '.git') return [];
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? checkoutFiles(dir, rel) : [rel];
  });
}

describe('a lazy agent checkout', () => {
  it('starts with the top-level files only, and its status is clean', async () => {
    const { agent, repo } = await lazyAgent();
    expect(checkoutFiles(agent.worktree).sort()).toEqual(['README.md', 'package.json']);
    expect(isLazy(repo)).toBe(true);
    const status = execFileSync('git', ['status', '--porcelain'], { cwd: agent.worktree, encoding: 'utf8' });
    expect(status).toBe('');
  });

  it('brings in what read, edit and ls touch; write needs no checkout; the commit holds every file', async () => {
    const { ws, agent, call } = await lazyAgent();
    expect(await call('read', { path: 'src/a.ts' })).toContain('export const a = 1;');
    await call('edit', { path: 'src/b.ts', old: '= 2', new: '= 20' });
    await call('write', { path: 'src/deep/c.ts', content: 'export const c = 30;\n' });
    await call('write', { path: 'src/new.ts', content: 'export const n = 0;\n' });
    expect(existsSync(join(agent.worktree, 'docs'))).toBe(false);
    // ls of a folder lists all of it: the folder is brought in whole.
    expect(await call('ls', { path: 'src/deep' })).toContain('c.ts');
    expect(await call('ls', { path: 'docs' })).toContain('guide.md');

    const committed = await commitAll(agent.worktree, 'change');
    if (!committed.ok || committed.status !== 'committed') throw new Error(JSON.stringify(committed));
    expect(committed.files.sort()).toEqual(['src/b.ts', 'src/deep/c.ts', 'src/new.ts']);
    const published = await agent.publish(committed.commit);
    expect(published).toEqual({ ok: true, value: committed.commit });
    expect(treeOf(ws.hubPath, committed.commit)).toEqual({
      ...FILES,
      'src/b.ts': 'export const b = 20;\n',
      'src/deep/c.ts': 'export const c = 30;\n',
      'src/new.ts': 'export const n = 0;\n',
    });
  });

  it('is filled whole by bash, for good, and what bash changed is committed', async () => {
    const { agent, repo, call } = await lazyAgent();
    const listed = await call('bash', { command: 'cat src/deep/c.ts docs/guide.md && echo x >> src/a.ts' });
    expect(listed).toContain('export const c = 3;');
    expect(listed).toContain('guide');
    expect(isLazy(repo)).toBe(false);
    expect(checkoutFiles(agent.worktree).sort()).toEqual(Object.keys(FILES).sort());
    const committed = await commitAll(agent.worktree, 'bash change');
    if (!committed.ok || committed.status !== 'committed') throw new Error(JSON.stringify(committed));
    expect(committed.files).toEqual(['src/a.ts']);
  });

  it('commits a file written behind the tools, outside what was brought in (git add --sparse)', async () => {
    const { agent, call } = await lazyAgent();
    // As a merge leaves a conflicted file: present in the checkout though never brought in.
    mkdirSync(join(agent.worktree, 'src'));
    writeFileSync(join(agent.worktree, 'src', 'a.ts'), 'export const a = 100;\n');
    // Bringing in more files applies the patterns again: git keeps the changed file.
    await call('read', { path: 'docs/guide.md' });
    expect(readFileSync(join(agent.worktree, 'src', 'a.ts'), 'utf8')).toBe('export const a = 100;\n');
    const committed = await commitAll(agent.worktree, 'behind the tools');
    if (!committed.ok || committed.status !== 'committed') throw new Error(JSON.stringify(committed));
    expect(committed.files).toEqual(['src/a.ts']);
    expect(execFileSync('git', ['show', 'HEAD:src/b.ts'], { cwd: agent.worktree, encoding: 'utf8' })).toBe(
      FILES['src/b.ts'],
    );
  });

  it('never drops a changed file when it brings in more', async () => {
    const { agent, call } = await lazyAgent();
    await call('write', { path: 'src/a.ts', content: 'changed, not committed\n' });
    await call('read', { path: 'docs/guide.md' });
    await call('read', { path: 'src/deep/c.ts' });
    expect(readFileSync(join(agent.worktree, 'src', 'a.ts'), 'utf8')).toBe('changed, not committed\n');
  });

  it('stays lazy when its repository is opened again, and is filled whole for an agent that needs every file', async () => {
    const { make, repo, call } = await lazyAgent();
    await call('read', { path: 'src/a.ts' });
    const again = await make().forAgent('peer-1', { lazy: true });
    if (!again.ok) throw new Error(again.error);
    expect(isLazy(repo)).toBe(true);
    expect(checkoutFiles(again.value.worktree).sort()).toEqual(['README.md', 'package.json', 'src/a.ts']);
    const full = await make().forAgent('peer-1');
    if (!full.ok) throw new Error(full.error);
    expect(isLazy(repo)).toBe(false);
    expect(checkoutFiles(full.value.worktree).sort()).toEqual(Object.keys(FILES).sort());
  });

  it('is made full once its tools have touched more paths than patterns are worth', async () => {
    const { agent, repo } = await lazyAgent();
    const few = Array.from({ length: MAX_LAZY_PATHS - 10 }, (_, i) => `gone/${i}.txt`);
    expect((await agent.fill.paths(few)).ok).toBe(true);
    expect(isLazy(repo)).toBe(true);
    expect((await agent.fill.paths(['src/a.ts', ...few.map((p) => `${p}.more`)])).ok).toBe(true);
    expect(isLazy(repo)).toBe(false);
    expect(checkoutFiles(agent.worktree).sort()).toEqual(Object.keys(FILES).sort());
  });

  it('is full from the start when the run has a setup command (it runs in the checkout)', async () => {
    const { agent, repo } = await lazyAgent({ setup: 'cat src/deep/c.ts > /dev/null' });
    expect(isLazy(repo)).toBe(false);
    expect(checkoutFiles(agent.worktree).sort()).toEqual(Object.keys(FILES).sort());
  });
});

/** Lands a commit on hub main that writes `files` (as another agent's merge would). */
function landOnMain(hub: string, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'colony-lazy-main-'));
  sh(dir, 'clone', '-q', '--branch', 'main', hub, '.');
  for (const [rel, text] of Object.entries(files)) write(dir, rel, text);
  sh(dir, 'commit', '-qam', 'landed elsewhere');
  sh(dir, 'push', '-q', 'origin', 'main');
  return sh(dir, 'rev-parse', 'HEAD');
}

describe('sync in a lazy checkout', () => {
  it("rebases onto main without bringing in main's files, and keeps the agent's change", async () => {
    const { ws, agent, call } = await lazyAgent();
    await call('edit', { path: 'src/a.ts', old: '= 1', new: '= 10' });
    const main = landOnMain(ws.hubPath, { 'docs/guide.md': 'guide v2\n', 'src/deep/c.ts': 'c v2\n' });
    const synced = await syncWorktree({ ...syncOptions(ws, agent), mode: 'rebase' });
    if (!synced.ok) throw new Error(synced.error);
    expect(synced.status).toBe('synced');
    expect(synced.main).toBe(main);
    expect(existsSync(join(agent.worktree, 'docs'))).toBe(false);
    expect(treeOf(ws.hubPath, synced.head)).toEqual({
      ...FILES,
      'src/a.ts': 'export const a = 10;\n',
      'docs/guide.md': 'guide v2\n',
      'src/deep/c.ts': 'c v2\n',
    });
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: agent.worktree, encoding: 'utf8' })).toBe(
      '',
    );
  });

  it('leaves a conflict in a file it never brought in where the agent can resolve and commit it', async () => {
    const { ws, agent, call } = await lazyAgent();
    await call('write', { path: 'src/b.ts', content: 'mine\n' });
    landOnMain(ws.hubPath, { 'src/b.ts': 'theirs\n' });
    const synced = await syncWorktree({ ...syncOptions(ws, agent), mode: 'merge' });
    if (!synced.ok) throw new Error(synced.error);
    expect(synced.status).toBe('conflict');
    expect(synced.conflicts).toEqual(['src/b.ts']);
    expect(await call('read', { path: 'src/b.ts' })).toContain('<<<<<<<');
    await call('write', { path: 'src/b.ts', content: 'both\n' });
    const committed = await commitAll(agent.worktree, 'resolved');
    if (!committed.ok || committed.status !== 'committed') throw new Error(JSON.stringify(committed));
    expect(await agent.publish(committed.commit)).toEqual({ ok: true, value: committed.commit });
    expect(treeOf(ws.hubPath, committed.commit)).toEqual({
      ...FILES,
      'src/b.ts': 'both\n',
    });
  });
});

function syncOptions(ws: RunWorkspace, agent: AgentWorkspace) {
  return {
    runId: 'lazy-sync',
    agent: agent.agent,
    worktree: agent.worktree,
    hubPath: ws.hubPath,
    log: store.log,
    publish: () => agent.publish(),
  };
}

describe('release of a lazy checkout', () => {
  it('saves a change a tool made after the last merge request published everything', async () => {
    const { ws, agent, call } = await lazyAgent();
    await call('write', { path: 'src/a.ts', content: 'published\n' });
    const committed = await commitChanges(agent.worktree, 'first');
    if (!committed.ok || committed.status !== 'committed') throw new Error(JSON.stringify(committed));
    expect((await agent.publish(committed.commit)).ok).toBe(true);
    await call('edit', { path: 'src/b.ts', old: '= 2', new: '= 22' });
    expect(await ws.release('peer-1')).toEqual({ ok: true, value: undefined });
    expect(existsSync(agent.worktree)).toBe(false);
    const tip = execFileSync('git', ['rev-parse', 'agent/peer-1'], {
      cwd: ws.hubPath,
      encoding: 'utf8',
    }).trim();
    expect(treeOf(ws.hubPath, tip)).toEqual({
      ...FILES,
      'src/a.ts': 'published\n',
      'src/b.ts': 'export const b = 22;\n',
    });
  });

  it('publishes an agent no tool touched on its start commit, and removes it', async () => {
    const { ws, agent, user } = await lazyAgent();
    expect(await ws.release('peer-1')).toEqual({ ok: true, value: undefined });
    expect(existsSync(agent.worktree)).toBe(false);
    const tip = execFileSync('git', ['rev-parse', 'agent/peer-1'], { cwd: ws.hubPath, encoding: 'utf8' });
    expect(tip.trim()).toBe(user.base);
  });

  it('after a tool touched it, looks for changes before releasing', async () => {
    const { ws, call, user } = await lazyAgent();
    await call('edit', { path: 'src/b.ts', old: '= 2', new: '= 3' });
    expect(await ws.release('peer-1')).toEqual({ ok: true, value: undefined });
    const tip = execFileSync('git', ['rev-parse', 'agent/peer-1'], {
      cwd: ws.hubPath,
      encoding: 'utf8',
    }).trim();
    expect(tip).not.toBe(user.base);
    expect(treeOf(ws.hubPath, tip)).toEqual({ ...FILES, 'src/b.ts': 'export const b = 3;\n' });
  });
});

describe('commitChanges', () => {
  it('reads the new commit from the ref files, or from git once the agent packed its refs', async () => {
    const { agent, repo, call } = await lazyAgent();
    const head = () =>
      execFileSync('git', ['rev-parse', 'HEAD'], { cwd: agent.worktree, encoding: 'utf8' }).trim();
    await call('write', { path: 'src/a.ts', content: 'one\n' });
    expect(await commitChanges(agent.worktree, 'one')).toEqual({
      ok: true,
      status: 'committed',
      commit: head(),
    });
    execFileSync('git', ['pack-refs', '--all'], { cwd: agent.worktree });
    expect(existsSync(join(repo.gitDir, 'refs', 'heads', 'agent', 'peer-1'))).toBe(false);
    await call('write', { path: 'src/a.ts', content: 'two\n' });
    const second = await commitChanges(agent.worktree, 'two');
    expect(second).toEqual({ ok: true, status: 'committed', commit: head() });
    expect(await commitChanges(agent.worktree, 'nothing')).toEqual({ ok: true, status: 'nothing-to-commit' });
  });
});

describe('sparsePattern', () => {
  it('matches the path literally', () => {
    expect(sparsePattern('src/a.ts')).toBe('/src/a.ts');
    expect(sparsePattern('a*b?[c]')).toBe('/a\\*b\\?\\[c\\]');
    expect(sparsePattern('!x #y ')).toBe('/\\!x \\#y\\ ');
  });

  it('brings in a file whose name holds wildcards, and only it', async () => {
    const user = createUserRepo(
      { 'README.md': '#\n', 'w/a*.txt': 'star\n', 'w/ab.txt': 'ab\n' },
      'colony-lazy-',
    );
    const ws = new RunWorkspace({
      runId: testRunId(),
      runDir: mkdtempSync(join(tmpdir(), 'colony-lazy-run-')),
      userRepo: user.dir,
      baseCommit: user.base,
      log: store.log,
    });
    if (!(await ws.open()).ok) throw new Error('hub');
    const got = await ws.forAgent('peer-1', { lazy: true });
    if (!got.ok) throw new Error(got.error);
    const filled = await got.value.fill.paths(['w/a*.txt']);
    expect(filled.ok).toBe(true);
    expect(checkoutFiles(got.value.worktree).sort()).toEqual(['README.md', 'w/a*.txt']);
  });
});
