/**
 * Publishing a finished run on each forge: the push goes over smart HTTP to a real bare repository on
 * the fake forge (carrying the token, as a push to the forge's own host does), and the pull/merge
 * request is opened through the forge's REST API, every request checked against the forge's
 * description (fake-forge/server.ts). Per forge: push + pull request with the run's summary, a draft
 * when verify failed, one pull request per landed merge request (stacked).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { preparePublish, publishRun } from '../../src/forge/index.js';
import type { ForgeKind } from '../../src/forge/types.js';
import { TOKEN_ENV } from '../../src/forge/types.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';
import { type FakeForge, startFakeForge } from './fake-forge/server.js';
import { finishedRun, gitIn, remoteBranch, seedRemote } from './run-fixture.js';

const TOKEN = 'forge-token-0123456789abcdef';
const REPO_PATH: Readonly<Record<ForgeKind, string>> = {
  github: 'acme/widgets',
  gitlab: 'acme/tools/widgets',
  gitea: 'acme/widgets',
};

let store: Store;
const forges: FakeForge[] = [];

beforeAll(async () => {
  store = await openTestStore();
});
afterEach(() => {
  // A request the forge's description rejects fails the test that made it.
  for (const forge of forges.splice(0)) {
    void forge.close();
    expect(forge.violations).toEqual([]);
  }
});
afterAll(async () => {
  await store.close();
});

async function setUp(kind: ForgeKind, options: { verifyPassed?: boolean } = {}) {
  const forge = await startFakeForge({
    kind,
    token: TOKEN,
    repoPath: REPO_PATH[kind],
    labels: ['colony', 'bot'],
    users: ['alice', 'bob'],
  });
  forges.push(forge);
  const run = await finishedRun(store, options);
  seedRemote(run.repo, forge.bare);
  gitIn(run.repo, 'remote', 'add', 'origin', forge.gitUrl);
  return { forge, run };
}

async function publish(
  kind: ForgeKind,
  forge: FakeForge,
  run: { runId: string; repo: string },
  options: { perMergeRequest?: boolean; labels?: string[]; reviewers?: string[] } = {},
) {
  const prepared = await preparePublish(
    run.repo,
    {
      remote: 'origin',
      pullRequest: {
        draft: false,
        labels: options.labels ?? ['colony'],
        reviewers: options.reviewers ?? ['alice'],
      },
      perMergeRequest: options.perMergeRequest ?? false,
      forge: kind,
      forgeApi: forge.apiBase,
    },
    { [TOKEN_ENV[kind]]: TOKEN },
  );
  if (!prepared.ok) throw new Error(prepared.error);
  return publishRun(store.log, run.runId, prepared.value);
}

async function kinds(runId: string): Promise<string[]> {
  return (await store.log.read(runId)).map((e) => e.kind).filter((k) => k.startsWith('publish.'));
}

describe.each(['github', 'gitlab', 'gitea'] as const)('publishing a run on %s', (kind) => {
  it('pushes the result branch and opens a pull request whose body is the run summary', async () => {
    const { forge, run } = await setUp(kind);
    const published = await publish(kind, forge, run);
    if (!published.ok) throw new Error(published.error);

    expect(remoteBranch(forge.bare, run.branch)).toBe(run.resultCommit);
    expect(published.value.pushed).toEqual([{ branch: run.branch, commit: run.resultCommit, created: true }]);
    expect(forge.pulls).toHaveLength(1);
    const pull = forge.pulls[0];
    expect(pull).toMatchObject({
      head: run.branch,
      base: 'main',
      draft: false,
      labels: ['colony'],
      reviewers: ['alice'],
    });
    expect(pull?.title).toContain('Fix the failing parser tests');
    expect(pull?.title).toContain(run.runId);
    for (const part of [
      '### What landed',
      'MR #1',
      '`fix the parser`',
      'MR #2',
      '`add the changelog entry`',
      '| tokens | 2001 input + 1000 cached input + 0 cache writes, 400 output',
      '| cost | $0.0250',
      '| CriticalSteps |',
      '| parallelism |',
      '| coordination share |',
      '| verify | `npm test` → passed',
      `colony report ${run.runId}`,
    ])
      expect(pull?.body).toContain(part);
    expect(published.value.pullRequests).toEqual([
      expect.objectContaining({
        number: 1,
        branch: run.branch,
        base: 'main',
        draft: false,
        mr: null,
        warnings: [],
      }),
    ]);
    expect(published.value.pullRequests[0]?.url).toContain(forge.origin);
    expect(await kinds(run.runId)).toEqual(['publish.pushed', 'publish.pr_opened']);
    // Every API request carried the token, and the push too (the forge's own git host).
    expect(forge.requests.length).toBeGreaterThan(0);
    for (const request of forge.requests) expect(request.authorization).toMatch(new RegExp(`${TOKEN}$`));
    expect(
      forge.git.seen.some(
        (s) => s.path.endsWith('git-receive-pack') && s.authorization?.startsWith('Basic '),
      ),
    ).toBe(true);
  });

  it('adds labels and asks reviewers as the forge can, and warns about the rest', async () => {
    const { forge, run } = await setUp(kind);
    const published = await publish(kind, forge, run, {
      labels: ['colony', 'new-label'],
      reviewers: ['alice', 'acme/core'],
    });
    if (!published.ok) throw new Error(published.error);
    const pull = forge.pulls[0];
    const warnings = published.value.pullRequests[0]?.warnings ?? [];
    if (kind === 'github') {
      expect(pull).toMatchObject({ labels: ['colony', 'new-label'], reviewers: ['alice', 'team:core'] });
      expect(warnings).toEqual([]);
    } else if (kind === 'gitlab') {
      expect(pull).toMatchObject({ labels: ['colony', 'new-label'], reviewers: ['alice'] });
      expect(warnings).toEqual(['reviewers not found: acme/core']);
    } else {
      expect(pull).toMatchObject({ labels: ['colony'], reviewers: ['alice', 'team:core'] });
      expect(warnings).toEqual(['labels not on the repository (Gitea adds existing labels only): new-label']);
    }
    const opened = (await store.log.read(run.runId)).find((e) => e.kind === 'publish.pr_opened');
    expect(opened?.data).toMatchObject({ warnings });
  });

  it('opens a draft when verify failed', async () => {
    const { forge, run } = await setUp(kind, { verifyPassed: false });
    const published = await publish(kind, forge, run);
    if (!published.ok) throw new Error(published.error);
    const pull = forge.pulls[0];
    expect(pull?.draft).toBe(true);
    expect(pull?.body).toContain('**Draft:** verify failed on the result (`npm test` → exit 1)');
    expect(pull?.body).toContain('| verify | `npm test` → failed (exit 1)');
    expect(published.value.pullRequests[0]?.draft).toBe(true);
    const opened = (await store.log.read(run.runId)).find((e) => e.kind === 'publish.pr_opened');
    expect(opened?.data).toMatchObject({ draft: true, forge: kind });
  });

  it('opens one pull request per landed merge request, each based on the one before', async () => {
    const { forge, run } = await setUp(kind);
    const published = await publish(kind, forge, run, { perMergeRequest: true, labels: [], reviewers: [] });
    if (!published.ok) throw new Error(published.error);
    const [first, second] = run.landed;
    const b1 = `${run.branch}-mr-1`;
    const b2 = `${run.branch}-mr-2`;
    expect(remoteBranch(forge.bare, b1)).toBe(first);
    expect(remoteBranch(forge.bare, b2)).toBe(second);
    expect(remoteBranch(forge.bare, run.branch)).toBeNull();
    expect(forge.pulls.map((p) => [p.head, p.base])).toEqual([
      [b1, 'main'],
      [b2, b1],
    ]);
    expect(forge.pulls[0]?.title).toContain('fix the parser');
    expect(forge.pulls[0]?.body).toContain('merge request 1 of 2');
    expect(forge.pulls[0]?.body).not.toContain('add the changelog entry');
    expect(forge.pulls[1]?.title).toContain('add the changelog entry');
    expect(published.value.pullRequests.map((p) => p.mr)).toEqual([1, 2]);
    expect(await kinds(run.runId)).toEqual(['publish.pushed', 'publish.pr_opened', 'publish.pr_opened']);
    // The second pull request's diff is its own change only.
    const diff = execFileSync('git', ['--git-dir', forge.bare, 'diff', '--name-only', `${b1}..${b2}`], {
      encoding: 'utf8',
    });
    expect(diff.trim()).toBe('file-2.txt');
  });
});
