/**
 * What publishing never does, and how it fails: a branch already on the remote at another commit is
 * refused and left as it was; publishing the same commit again changes nothing and opens no second
 * pull request; the token goes to the forge's API (and to the forge's own git host) only, never to
 * another git host; a bad remote, a missing token, a 401 and a 422 are clear errors that lose
 * nothing (the user's branch, the pushed branch, the log with `publish.failed`), and publishing again
 * after a failed pull request finishes the job.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type PublishRequest, preparePublish, publishRun } from '../../src/forge/index.js';
import type { ForgeKind } from '../../src/forge/types.js';
import { TOKEN_ENV } from '../../src/forge/types.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';
import { startGitServer } from './fake-forge/git-http.js';
import { type FakeForge, startFakeForge } from './fake-forge/server.js';
import { finishedRun, gitIn, remoteBranch, seedRemote } from './run-fixture.js';

const TOKEN = 'forge-token-fedcba9876543210';
let store: Store;
const closers: Array<() => Promise<void>> = [];
const forges: FakeForge[] = [];

beforeAll(async () => {
  store = await openTestStore();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const forge of forges.splice(0)) expect(forge.violations).toEqual([]);
});
afterAll(async () => {
  await store.close();
});

async function setUp(kind: ForgeKind = 'github') {
  const forge = await startFakeForge({ kind, token: TOKEN, repoPath: 'acme/widgets', users: ['alice'] });
  forges.push(forge);
  closers.push(forge.close);
  const run = await finishedRun(store);
  seedRemote(run.repo, forge.bare);
  gitIn(run.repo, 'remote', 'add', 'origin', forge.gitUrl);
  return { forge, run };
}

function request(kind: ForgeKind, forge: FakeForge, change: Partial<PublishRequest> = {}): PublishRequest {
  return {
    remote: 'origin',
    pullRequest: { draft: false, labels: [], reviewers: [] },
    perMergeRequest: false,
    forge: kind,
    forgeApi: forge.apiBase,
    ...change,
  };
}

async function publish(repo: string, runId: string, req: PublishRequest, env: NodeJS.ProcessEnv) {
  const prepared = await preparePublish(repo, req, env);
  if (!prepared.ok) return prepared;
  return publishRun(store.log, runId, prepared.value);
}

async function publishKinds(runId: string): Promise<string[]> {
  return (await store.log.read(runId)).map((e) => e.kind).filter((k) => k.startsWith('publish.'));
}

describe('publishing never overwrites', () => {
  it('refuses a branch already on the remote at another commit and leaves it as it was', async () => {
    const { forge, run } = await setUp('github');
    // Someone else's branch of the same name, at the base commit.
    gitIn(run.repo, 'push', '--quiet', forge.bare, `${run.base}:refs/heads/${run.branch}`);
    const published = await publish(run.repo, run.runId, request('github', forge), { GITHUB_TOKEN: TOKEN });
    expect(published.ok).toBe(false);
    if (!published.ok)
      expect(published.error).toMatch(
        new RegExp(
          `branch ${run.branch} already exists on .* at another commit; Colony never overwrites a branch`,
        ),
      );
    expect(remoteBranch(forge.bare, run.branch)).toBe(run.base);
    expect(forge.pulls).toEqual([]);
    const failed = (await store.log.read(run.runId)).find((e) => e.kind === 'publish.failed');
    expect(failed?.data).toMatchObject({ step: 'push' });
    // The user's own result branch is untouched.
    expect(gitIn(run.repo, 'rev-parse', run.branch)).toBe(run.resultCommit);
  });

  it('refuses per-merge-request branches atomically: none is pushed when one is taken', async () => {
    const { forge, run } = await setUp('github');
    gitIn(run.repo, 'push', '--quiet', forge.bare, `${run.base}:refs/heads/${run.branch}-mr-2`);
    const published = await publish(
      run.repo,
      run.runId,
      request('github', forge, { perMergeRequest: true }),
      {
        GITHUB_TOKEN: TOKEN,
      },
    );
    expect(published.ok).toBe(false);
    expect(remoteBranch(forge.bare, `${run.branch}-mr-1`)).toBeNull();
    expect(remoteBranch(forge.bare, `${run.branch}-mr-2`)).toBe(run.base);
  });
});

describe.each(['github', 'gitlab', 'gitea'] as const)('publishing the same commit again on %s', (kind) => {
  it('changes nothing and opens no second pull request', async () => {
    const { forge, run } = await setUp(kind);
    const env = { [TOKEN_ENV[kind]]: TOKEN };
    const first = await publish(run.repo, run.runId, request(kind, forge), env);
    if (!first.ok) throw new Error(first.error);
    const again = await publish(run.repo, run.runId, request(kind, forge), env);
    if (!again.ok) throw new Error(again.error);
    expect(again.value.pushed).toEqual([{ branch: run.branch, commit: run.resultCommit, created: false }]);
    expect(again.value.pullRequests).toEqual([
      expect.objectContaining({ number: 1, existing: true, url: first.value.pullRequests[0]?.url }),
    ]);
    expect(forge.pulls).toHaveLength(1);
    expect(remoteBranch(forge.bare, run.branch)).toBe(run.resultCommit);
  });
});

describe('the token', () => {
  it('goes to the forge API only, never to a git remote on another host', async () => {
    const { forge, run } = await setUp('gitea');
    // The same repositories served by a plain git server: another host (port) than the forge's API.
    const other = await startGitServer(forge.git.root);
    closers.push(other.close);
    const published = await publish(
      run.repo,
      run.runId,
      request('gitea', forge, { remote: `${other.origin}/acme/widgets.git` }),
      { GITEA_TOKEN: TOKEN },
    );
    if (!published.ok) throw new Error(published.error);
    expect(remoteBranch(forge.bare, run.branch)).toBe(run.resultCommit);
    expect(other.git.seen.some((s) => s.path.endsWith('/git-receive-pack'))).toBe(true);
    expect(other.git.seen.filter((s) => s.authorization !== undefined)).toEqual([]);
    expect(forge.git.seen).toEqual([]);
    expect(forge.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
    expect(forge.pulls).toHaveLength(1);
    // Nor is it in the log.
    const log = JSON.stringify(await store.log.read(run.runId));
    expect(log).not.toContain(TOKEN);
  });

  it('is not sent to a forge API given over plain http on another machine', async () => {
    const { run } = await setUp('gitea');
    const prepared = await preparePublish(
      run.repo,
      {
        remote: 'origin',
        pullRequest: null,
        perMergeRequest: false,
        forge: 'gitea',
        forgeApi: 'http://git.example.com/api/v1',
      },
      { GITEA_TOKEN: TOKEN },
    );
    expect(prepared.ok).toBe(false);
    if (!prepared.ok) expect(prepared.error).toMatch(/--forge-api must be https/);
  });
});

describe('failures are clear and lose nothing', () => {
  it('names a remote that does not exist, and refuses local and file:// remotes', async () => {
    const { forge, run } = await setUp('github');
    const tries: Array<[string, RegExp]> = [
      ['upstream', /no remote "upstream" in .*git remote -v lists them/],
      [`file://${forge.bare}`, /file:\/\/ is not https, http or ssh/],
      [forge.bare, /a local path; Colony pushes over https, http or ssh only/],
      ['ext::sh -c touch% /tmp/pwned', /a git transport helper/],
    ];
    for (const [remote, message] of tries) {
      const prepared = await preparePublish(run.repo, request('github', forge, { remote }), {
        GITHUB_TOKEN: TOKEN,
      });
      expect(prepared.ok).toBe(false);
      if (!prepared.ok) expect(prepared.error).toMatch(message);
    }
  });

  it('says which variable a missing token goes in', async () => {
    const { forge, run } = await setUp('gitlab');
    const prepared = await preparePublish(run.repo, request('gitlab', forge), {});
    expect(prepared.ok).toBe(false);
    if (!prepared.ok) expect(prepared.error).toMatch(/GITLAB_TOKEN is not set/);
  });

  it('says which token a push without credentials needs (no credential helper is asked)', async () => {
    const { forge, run } = await setUp('gitea');
    const published = await publish(run.repo, run.runId, request('gitea', forge, { pullRequest: null }), {});
    expect(published.ok).toBe(false);
    if (!published.ok)
      expect(published.error).toMatch(
        /set GITEA_TOKEN \(Colony uses no git credential helper\); or push over ssh/,
      );
    expect(remoteBranch(forge.bare, run.branch)).toBeNull();
    expect(await publishKinds(run.runId)).toEqual(['publish.failed']);
  });

  it('stops on a 401 before pushing anything, and logs publish.failed', async () => {
    const { forge, run } = await setUp('github');
    const published = await publish(run.repo, run.runId, request('github', forge), {
      GITHUB_TOKEN: 'wrong-token',
    });
    expect(published.ok).toBe(false);
    if (!published.ok) {
      expect(published.error).toMatch(/GET \/api\/v3\/repos\/acme\/widgets → 401: Bad credentials/);
      expect(published.error).not.toContain('wrong-token');
    }
    expect(remoteBranch(forge.bare, run.branch)).toBeNull();
    expect(forge.git.seen).toEqual([]);
    expect(await publishKinds(run.runId)).toEqual(['publish.failed']);
  });

  it('keeps the pushed branch on a 422, and a publish again opens the pull request', async () => {
    const { forge, run } = await setUp('github');
    forge.failNext('POST', /\/pulls$/, 422, {
      message: 'Validation Failed',
      errors: [{ resource: 'PullRequest', code: 'custom', message: 'No commits between main and head' }],
    });
    const published = await publish(run.repo, run.runId, request('github', forge), { GITHUB_TOKEN: TOKEN });
    expect(published.ok).toBe(false);
    if (!published.ok) {
      expect(published.error).toMatch(/→ 422: Validation Failed: .*No commits between main and head/);
      expect(published.error).toMatch(/the branch is pushed: publish again/);
    }
    expect(remoteBranch(forge.bare, run.branch)).toBe(run.resultCommit);
    expect(await publishKinds(run.runId)).toEqual(['publish.pushed', 'publish.failed']);
    const failed = (await store.log.read(run.runId)).find((e) => e.kind === 'publish.failed');
    expect(failed?.data).toMatchObject({ step: 'pull_request', branch: run.branch });

    const again = await publish(run.repo, run.runId, request('github', forge), { GITHUB_TOKEN: TOKEN });
    if (!again.ok) throw new Error(again.error);
    expect(again.value.pullRequests).toEqual([expect.objectContaining({ number: 1, existing: false })]);
    expect(forge.pulls).toHaveLength(1);
  });
});
