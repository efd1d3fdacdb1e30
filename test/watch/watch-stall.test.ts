/**
 * `colony watch --stall-timeout`: a run whose log does not move (its model does not answer) is
 * stopped by the watch, and the issue is told: stopped, no pull request (nothing landed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { type FakeForge, startFakeForge } from '../forge/fake-forge/server.js';
import { gitIn, seedRemote } from '../forge/run-fixture.js';
import { fakeModelFlags } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { startWatch, waitFor } from './watch-helpers.js';

const TOKEN = 'gitlab-token-stall-0042';
let model: FakeProvider;
let forge: FakeForge;
beforeAll(async () => {
  // Each answer takes ten minutes: the run's log stops at its first model call.
  model = await startFakeProvider({ policy: () => ({ text: 'too late' }), latencyMs: 600_000 });
  forge = await startFakeForge({
    kind: 'gitlab',
    token: TOKEN,
    repoPath: 'acme/tools/hello',
    issues: [{ title: 'Something slow', labels: ['colony'] }],
  });
});
afterAll(async () => {
  await model?.close();
  await forge?.close();
  expect(forge.violations).toEqual([]);
});

describe('colony watch --stall-timeout', () => {
  it('stops a run that makes no progress and comments that it stopped', async () => {
    const repo = createUserRepo({ 'README.md': '# hello\n' }, 'colony-watch-stall-').dir;
    seedRemote(repo, forge.bare);
    gitIn(repo, 'remote', 'add', 'origin', forge.gitUrl);
    const watch = startWatch(
      [
        '--forge',
        'gitlab',
        '--forge-api',
        forge.apiBase,
        '--repo',
        'acme/tools/hello',
        '--label',
        'colony',
        '--clone',
        repo,
        '--poll',
        '200ms',
        '--stall-timeout',
        '2s',
        ...fakeModelFlags(model.url),
        '--sandbox',
        'auto',
      ],
      { GITLAB_TOKEN: TOKEN },
    );
    const comments = () => forge.issues[0]?.comments ?? [];
    await waitFor(
      'the outcome comment',
      () => comments().some((c) => c.body.includes('colony-watch:finished')),
      watch,
    );
    watch.child.kill('SIGTERM');
    expect(await watch.closed).toBe(0);
    expect(watch.output()).toMatch(/stalled: stop (requested|finished)/);
    const outcome = comments().find((c) => c.body.includes('colony-watch:finished'))?.body ?? '';
    expect(outcome).toContain('**stopped**');
    expect(outcome).toContain('No pull request: the run landed nothing.');
    expect(forge.pulls).toEqual([]);
  }, 240_000);
});
