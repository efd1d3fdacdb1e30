/**
 * `colony watch` end to end (the built CLI, a fake GitHub validated against GitHub's OpenAPI
 * description, real scripted runs): two labelled issues become two runs, two pull requests and two
 * outcome comments. The first watch is killed with SIGKILL after both runs started and while its
 * first "run started" comment is unanswered (the fake forge holds it, and creates it after the kill:
 * the watch never learnt it was posted): the watch started again posts the missing comment and not
 * the one the forge has, publishes and reports both runs, and starts neither again.
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

const TOKEN = 'github-token-watch-0042';
const policy: ScriptedPolicy = (request) => {
  const toolResults = request.messages.filter((m) => m.role === 'tool').length;
  if (toolResults === 0)
    return { toolCalls: [{ name: 'write', arguments: { path: 'done.txt', content: 'done\n' } }] };
  return { text: 'Wrote done.txt.' };
};

let model: FakeProvider;
let forge: FakeForge;
let store: Store;
beforeAll(async () => {
  model = await startFakeProvider({ policy });
  forge = await startFakeForge({
    kind: 'github',
    token: TOKEN,
    repoPath: 'acme/hello',
    issues: [
      { title: 'Add a greeting', body: 'Write done.txt.', labels: ['colony'] },
      { title: 'Not for Colony', labels: ['bug'] },
      { title: 'Add a farewell', body: 'Write done.txt too.', labels: ['colony', 'bug'] },
      { title: 'A labelled pull request', labels: ['colony'], pullRequest: true },
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

const started = (runId: string) => `<!-- colony-watch:started ${runId} -->`;
const finished = (runId: string) => `<!-- colony-watch:finished ${runId} -->`;

describe('colony watch', () => {
  it('two labelled issues → two runs → two pull requests and outcome comments; a killed watch restarted starts neither again', async () => {
    const repo = createUserRepo({ 'README.md': '# hello\n' }, 'colony-watch-').dir;
    seedRemote(repo, forge.bare);
    gitIn(repo, 'remote', 'add', 'origin', forge.gitUrl);
    const args = [
      '--forge',
      'github',
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
      '2',
      ...fakeModelFlags(model.url),
      '--verify',
      'test -f done.txt',
      '--sandbox',
      'auto',
    ];
    const env = { GITHUB_TOKEN: TOKEN };
    const table = watchTable(store.pool, { apiBase: forge.apiBase, repo: 'acme/hello', forge: 'github' });
    const recordedRuns = async () => {
      const rows = await table.all();
      const runs = await Promise.all(rows.map((r) => store.runs.getRun(r.runId)));
      return runs.filter((r) => r !== null).length;
    };

    // The first watch: comments are held unanswered, so it is killed between starting the runs and
    // commenting on the issues.
    forge.holdComments(true);
    const first = startWatch(args, env);
    await waitFor(
      'both runs recorded and a comment held',
      async () => (await recordedRuns()) === 2 && forge.held() >= 1,
      first,
    );
    first.child.kill('SIGKILL');
    await first.closed;
    // The held comment is created now: the forge did it, the killed watch never heard so.
    forge.createHeld();
    forge.holdComments(false);
    const taken = await table.all();
    expect(taken.map((r) => r.issue)).toEqual([1, 3]);
    expect(taken.every((r) => !r.startedCommented)).toBe(true);
    // Whichever run was recorded first had its comment held; the other's was not posted yet.
    const posted = taken.map((r) => forge.issues[r.issue - 1]?.comments.map((c) => c.body) ?? []);
    expect(posted.flat()).toHaveLength(1);
    expect(taken.some((r, i) => posted[i]?.[0]?.includes(started(r.runId)))).toBe(true);

    // The second watch carries on: comments, follows both runs to their end, publishes, reports.
    const second = startWatch(args, env);
    await waitFor(
      'both outcome comments',
      () =>
        taken.every((r) =>
          forge.issues[r.issue - 1]?.comments.some((c) => c.body.includes(finished(r.runId))),
        ),
      second,
    );
    second.child.kill('SIGTERM');
    expect(await second.closed).toBe(0);

    // Two runs, each started once: the issue's row names it, no other run was recorded for the clone.
    const rows = await table.all();
    expect(rows).toEqual([
      expect.objectContaining({ issue: 1, runId: taken[0]?.runId, finished: true, startedCommented: true }),
      expect.objectContaining({ issue: 3, runId: taken[1]?.runId, finished: true, startedCommented: true }),
    ]);
    const runsOfClone = (await store.runs.listRuns(500)).filter((r) => r.goal.startsWith('Add a '));
    expect(runsOfClone.map((r) => r.runId).sort()).toEqual(rows.map((r) => r.runId).sort());
    for (const run of runsOfClone) expect(run.status).toBe('succeeded');
    expect(second.output()).not.toMatch(/starting/);
    expect(runsOfClone.find((r) => r.runId === taken[0]?.runId)?.goal).toBe(
      'Add a greeting\n\nWrite done.txt.',
    );

    // Two pull requests, one per run, and each issue: one "started" and one outcome comment linking it.
    expect(forge.pulls.map((p) => p.head).sort()).toEqual(rows.map((r) => `colony/${r.runId}`).sort());
    expect(forge.pulls.every((p) => !p.draft)).toBe(true);
    for (const row of rows) {
      const comments = forge.issues[row.issue - 1]?.comments ?? [];
      expect(comments.filter((c) => c.body.includes(started(row.runId)))).toHaveLength(1);
      const outcome = comments.filter((c) => c.body.includes(finished(row.runId)));
      expect(outcome).toHaveLength(1);
      const pull = forge.pulls.find((p) => p.head === `colony/${row.runId}`);
      expect(outcome[0]?.body).toContain('**succeeded**');
      expect(outcome[0]?.body).toContain(`Pull request: ${forge.origin}/acme/hello/pull/${pull?.number}`);
      expect(comments).toHaveLength(2);
    }
    expect(forge.issues[1]?.comments).toEqual([]);
    expect(forge.issues[3]?.comments).toEqual([]);
    expect(first.output() + second.output()).not.toContain(TOKEN);
  }, 420_000);
});
