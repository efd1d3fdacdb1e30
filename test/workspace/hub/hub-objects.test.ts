/**
 * Colony's commits in an agent's repository write their objects straight into the hub
 * (src/workspace/worktree.ts commitChanges with `hub`), so publishing them copies nothing; when the
 * agent's own store holds part of what the commit needs (it committed or staged in its own bash),
 * the commit is made in the agent's store and published by copying. Either way the hub ends up with
 * the branch and every object it reaches (git fsck), and never with an incomplete commit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentRepo,
  openAgentRepo,
  publishAgentRepo,
} from '../../../src/workspace/agent-repo/agent-repo.js';
import { isLooseObject } from '../../../src/workspace/git/loose-ref.js';
import { commitChanges } from '../../../src/workspace/worktree.js';
import { agentRepoIn, sh, tempDir, userRepoAndHub, write } from '../helpers.js';

/** `git` with stdin, as the test's user (helpers.ts sh has no input). */
function gitWithInput(cwd: string, args: string[], input: string): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));
  return execFileSync('git', args, { cwd, input, encoding: 'utf8', env }).trim();
}

describe("Colony's commits in an agent repository", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  async function setUp() {
    const made = tempDir('colony-hub-objects-');
    cleanup = made.cleanup;
    const { hub, base } = await userRepoAndHub(made.dir, { 'a.txt': 'one\n', 'src/b.txt': 'b\n' });
    const repo = agentRepoIn(made.dir, 'ann');
    const opened = await openAgentRepo({ hubPath: hub, repo, startCommit: base });
    if (!opened.ok) throw new Error(opened.error);
    return { hub, base, repo };
  }

  /** Object files in the agent's own store (its objects/xx folders). */
  const ownObjects = (repo: AgentRepo) =>
    readdirSync(path.join(repo.gitDir, 'objects')).filter((name) => /^[0-9a-f]{2}$/.test(name));

  const hubIsComplete = (hub: string, commit: string) => {
    sh(hub, 'fsck', '--connectivity-only', '--no-dangling', '--no-progress');
    // Every object the commit reaches is in the hub (rev-list fails on a missing one).
    sh(hub, 'rev-list', '--objects', commit);
  };

  it('writes a new commit and its files into the hub, so publishing only moves the branch', async () => {
    const { hub, repo } = await setUp();
    write(repo.checkout, 'a.txt', 'two\n');
    write(repo.checkout, 'src/new.txt', 'new\n');
    const committed = await commitChanges(repo.checkout, 'change', { hub });
    if (!committed.ok || committed.status !== 'committed') throw new Error(JSON.stringify(committed));
    expect(isLooseObject(hub, committed.commit)).toBe(true);
    expect(ownObjects(repo)).toEqual([]);
    expect(sh(repo.checkout, 'rev-parse', 'HEAD')).toBe(committed.commit);
    expect(sh(repo.checkout, 'status', '--porcelain')).toBe('');

    const published = await publishAgentRepo(hub, repo, { knownHead: committed.commit });
    expect(published).toEqual({ ok: true, value: committed.commit });
    expect(sh(hub, 'rev-parse', 'refs/heads/agent/ann')).toBe(committed.commit);
    expect(sh(hub, 'show', `${committed.commit}:src/new.txt`)).toBe('new');
    hubIsComplete(hub, committed.commit);
    // Nothing to commit is said as such, with the hub's store too.
    expect(await commitChanges(repo.checkout, 'again', { hub })).toEqual({
      ok: true,
      status: 'nothing-to-commit',
    });
  });

  it("commits on the agent's own commit in its own store, and publishing copies both", async () => {
    const { hub, repo } = await setUp();
    write(repo.checkout, 'a.txt', 'by the agent\n');
    sh(repo.checkout, 'commit', '--quiet', '-am', "the agent's own commit");
    const own = sh(repo.checkout, 'rev-parse', 'HEAD');
    write(repo.checkout, 'src/b.txt', 'by colony\n');
    const committed = await commitChanges(repo.checkout, 'on top', { hub });
    if (!committed.ok || committed.status !== 'committed') throw new Error(JSON.stringify(committed));
    expect(sh(repo.checkout, 'rev-parse', 'HEAD^')).toBe(own);
    // Not written into the hub: its parent is not there.
    expect(isLooseObject(hub, committed.commit)).toBe(false);
    expect(existsSync(path.join(hub, 'objects', own.slice(0, 2), own.slice(2)))).toBe(false);

    const published = await publishAgentRepo(hub, repo, { knownHead: committed.commit });
    expect(published).toEqual({ ok: true, value: committed.commit });
    expect(sh(hub, 'log', '--format=%s', '-2', 'refs/heads/agent/ann')).toBe(
      "on top\nthe agent's own commit",
    );
    hubIsComplete(hub, committed.commit);
  });

  it("does not write a tree into the hub that names a file only the agent's store has", async () => {
    const { hub, repo } = await setUp();
    // An index entry the agent made in its own bash for an object of its own store, kept out of
    // the checkout (skip-worktree), so Colony's `git add` has no file to write into the hub.
    const ghost = gitWithInput(repo.checkout, ['hash-object', '-w', '--stdin'], 'only the agent has it\n');
    sh(repo.checkout, 'update-index', '--add', '--cacheinfo', `100644,${ghost},ghost.txt`);
    sh(repo.checkout, 'update-index', '--skip-worktree', 'ghost.txt');
    expect(isLooseObject(hub, ghost)).toBe(false);
    write(repo.checkout, 'a.txt', 'two\n');
    const committed = await commitChanges(repo.checkout, 'with the ghost file', { hub });
    if (!committed.ok || committed.status !== 'committed') throw new Error(JSON.stringify(committed));
    // Made in the agent's store: the hub's git refused a tree naming an object it does not have.
    expect(isLooseObject(hub, committed.commit)).toBe(false);
    expect(isLooseObject(repo.gitDir, committed.commit)).toBe(true);

    const published = await publishAgentRepo(hub, repo, { knownHead: committed.commit });
    expect(published.ok).toBe(true);
    expect(sh(hub, 'show', `${committed.commit}:ghost.txt`)).toBe('only the agent has it');
    hubIsComplete(hub, committed.commit);
  });
});
