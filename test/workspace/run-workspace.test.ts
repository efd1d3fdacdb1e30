/**
 * RunWorkspace's agent repositories end to end on real git and a real event log: release saves what
 * an agent left (uncommitted files, commits made after its last publish) into the hub before its
 * repository goes, and an agent still waiting for its checkout when the run ends gets none.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import type { EventLog } from '../../src/store/types.js';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

async function openWorkspace(signal?: AbortSignal, log: EventLog = store.log): Promise<RunWorkspace> {
  const user = createUserRepo({ 'README.md': '# w\n', 'src/a.txt': 'a\n' }, 'colony-rw-');
  const workspace = new RunWorkspace({
    runId: testRunId(),
    runDir: mkdtempSync(join(tmpdir(), 'colony-rw-run-')),
    userRepo: user.dir,
    baseCommit: user.base,
    log,
    signal,
  });
  const opened = await workspace.open();
  if (!opened.ok) throw new Error(opened.error);
  return workspace;
}

const hubBranch = (ws: RunWorkspace, agent: string) =>
  execFileSync('git', ['rev-parse', `refs/heads/agent/${agent}`], {
    cwd: ws.hubPath,
    encoding: 'utf8',
  }).trim();
const hubFile = (ws: RunWorkspace, agent: string, file: string) =>
  execFileSync('git', ['show', `refs/heads/agent/${agent}:${file}`], { cwd: ws.hubPath, encoding: 'utf8' });
const agentGit = (checkout: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: checkout,
    encoding: 'utf8',
  }).trim();

describe('RunWorkspace.release', () => {
  it('commits and copies uncommitted work into the hub, then removes the repository', async () => {
    const ws = await openWorkspace();
    const got = await ws.forAgent('peer-1');
    if (!got.ok) throw new Error(got.error);
    writeFileSync(join(got.value.worktree, 'src', 'new.txt'), 'left behind\n');
    const released = await ws.release('peer-1');
    expect(released).toEqual({ ok: true, value: undefined });
    expect(hubFile(ws, 'peer-1', 'src/new.txt')).toBe('left behind\n');
    expect(existsSync(got.value.worktree)).toBe(false);
    expect(existsSync(ws.repoOf('peer-1').gitDir)).toBe(false);
  });

  it('copies a commit made after the last publish even when the checkout is clean', async () => {
    const ws = await openWorkspace();
    const got = await ws.forAgent('peer-2');
    if (!got.ok) throw new Error(got.error);
    const { worktree } = got.value;
    writeFileSync(join(worktree, 'src', 'a.txt'), 'first\n');
    agentGit(worktree, 'commit', '-qam', 'first');
    const first = await got.value.publish();
    if (!first.ok) throw new Error(first.error);
    // The agent commits again in its own shell: the tree is clean, its HEAD is not in the hub.
    writeFileSync(join(worktree, 'src', 'a.txt'), 'second\n');
    agentGit(worktree, 'commit', '-qam', 'second');
    const head = agentGit(worktree, 'rev-parse', 'HEAD');
    expect(head).not.toBe(first.value);
    expect((await ws.release('peer-2')).ok).toBe(true);
    expect(hubBranch(ws, 'peer-2')).toBe(head);
    expect(hubFile(ws, 'peer-2', 'src/a.txt')).toBe('second\n');
  });

  it('leaves a published, clean agent branch as it is', async () => {
    const ws = await openWorkspace();
    const got = await ws.forAgent('peer-3');
    if (!got.ok) throw new Error(got.error);
    writeFileSync(join(got.value.worktree, 'src', 'a.txt'), 'done\n');
    agentGit(got.value.worktree, 'commit', '-qam', 'done');
    const published = await got.value.publish();
    if (!published.ok) throw new Error(published.error);
    expect((await ws.release('peer-3')).ok).toBe(true);
    expect(hubBranch(ws, 'peer-3')).toBe(published.value);
    expect(existsSync(got.value.worktree)).toBe(false);
  });
});

describe('RunWorkspace checkouts', () => {
  it('fills no checkout for an agent once the run has ended', async () => {
    const end = new AbortController();
    const ws = await openWorkspace(end.signal);
    const first = await ws.forAgent('peer-1');
    expect(first.ok).toBe(true);
    end.abort();
    const late = await ws.forAgent('peer-2');
    expect(late).toEqual({ ok: false, error: 'the run ended first' });
    expect(existsSync(ws.worktreePath('peer-2'))).toBe(false);
  });

  it('fills many checkouts asked for at once, each on the run base', async () => {
    const ws = await openWorkspace();
    const agents = Array.from({ length: 12 }, (_, i) => `peer-${i + 1}`);
    const all = await Promise.all(agents.map((agent) => ws.forAgent(agent)));
    for (const got of all) {
      if (!got.ok) throw new Error(got.error);
      expect(execFileSync('cat', [join(got.value.worktree, 'src', 'a.txt')], { encoding: 'utf8' })).toBe(
        'a\n',
      );
    }
  });
});

describe('RunWorkspace.forAgent', () => {
  it('makes the repository again after a creation that threw (the database went away while it read the log)', async () => {
    let failReads = 0;
    // The run's log, whose next read fails as a dropped connection does.
    const flaky = new Proxy(store.log, {
      get(target, prop) {
        if (prop === 'read')
          return (...args: Parameters<EventLog['read']>) => {
            if (failReads > 0) {
              failReads--;
              return Promise.reject(new Error('Connection terminated unexpectedly'));
            }
            return target.read(...args);
          };
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const ws = await openWorkspace(undefined, flaky);
    failReads = 1;
    await expect(ws.forAgent('peer-1')).rejects.toThrow('Connection terminated unexpectedly');
    // Not the same rejection again: the database is back, so the repository is made.
    const again = await ws.forAgent('peer-1');
    if (!again.ok) throw new Error(again.error);
    expect(existsSync(join(again.value.worktree, 'README.md'))).toBe(true);
  });
});

describe('RunWorkspace.basePaths', () => {
  it("lists the base commit's files from the hub, sorted", async () => {
    const ws = await openWorkspace();
    expect(await ws.basePaths()).toEqual(['README.md', 'src/a.txt']);
  });
});
