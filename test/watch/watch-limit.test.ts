/**
 * `colony watch --max-runs 1` on Gitea: two labelled issues run one after the other — the second run
 * is recorded only after the first has finished and been reported — each with its pull request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { watchTable } from '../../src/watch/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { type FakeForge, startFakeForge } from '../forge/fake-forge/server.js';
import { gitIn, seedRemote } from '../forge/run-fixture.js';
import { fakeModelFlags } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { startWatch, waitFor } from './watch-helpers.js';

const TOKEN = 'gitea-token-limit-0042';
const policy: ScriptedPolicy = (request) =>
  request.messages.some((m) => m.role === 'tool')
    ? { text: 'Wrote done.txt.' }
    : { toolCalls: [{ name: 'write', arguments: { path: 'done.txt', content: 'done\n' } }] };

let model: FakeProvider;
let forge: FakeForge;
let store: Store;
beforeAll(async () => {
  model = await startFakeProvider({ policy });
  forge = await startFakeForge({
    kind: 'gitea',
    token: TOKEN,
    repoPath: 'acme/hello',
    issues: [
      { title: 'First thing', labels: ['colony'] },
      { title: 'Second thing', labels: ['colony'] },
    ],
  });
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
  await model?.close();
  await forge?.close();
  expect(forge.violations).toEqual([]);
});

describe('colony watch --max-runs', () => {
  it('runs at most K issues at once', async () => {
    const repo = createUserRepo({ 'README.md': '# hello\n' }, 'colony-watch-limit-').dir;
    seedRemote(repo, forge.bare);
    gitIn(repo, 'remote', 'add', 'origin', forge.gitUrl);
    const watch = startWatch(
      [
        '--forge',
        'gitea',
        '--forge-api',
        forge.apiBase,
        '--repo',
        'acme/hello',
        '--label',
        'colony',
        '--clone',
        repo,
        '--poll',
        '200ms',
        '--max-runs',
        '1',
        ...fakeModelFlags(model.url),
        '--verify',
        'test -f done.txt',
        '--sandbox',
        'auto',
      ],
      { GITEA_TOKEN: TOKEN },
    );
    const reported = (n: number) =>
      forge.issues[n - 1]?.comments.some((c) => c.body.includes('colony-watch:finished')) ?? false;
    await waitFor('both outcome comments', () => reported(1) && reported(2), watch, 300_000);
    watch.child.kill('SIGTERM');
    expect(await watch.closed).toBe(0);

    const rows = await watchTable(store.pool, {
      apiBase: forge.apiBase,
      repo: 'acme/hello',
      forge: 'gitea',
    }).all();
    expect(rows.map((r) => r.issue)).toEqual([1, 2]);
    const [first, second] = await Promise.all(rows.map((r) => store.runs.getRun(r.runId)));
    expect(first?.finishedAt).toBeTruthy();
    expect(Date.parse(second?.createdAt ?? '')).toBeGreaterThanOrEqual(Date.parse(first?.finishedAt ?? ''));
    const out = watch.output();
    expect(out).toContain(`issue #1: run ${rows[0]?.runId} succeeded; ${forge.origin}/acme/hello/pulls/`);
    expect(out).toContain(`issue #2: run ${rows[1]?.runId} starting`);
    expect(out.indexOf(`issue #2: run ${rows[1]?.runId} starting`)).toBeGreaterThan(
      out.indexOf(`issue #1: run ${rows[0]?.runId} succeeded`),
    );
    expect(forge.pulls.map((p) => p.head)).toEqual(rows.map((r) => `colony/${r.runId}`));
  }, 420_000);
});
