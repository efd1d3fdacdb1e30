/**
 * `colony watch` against a forge that refuses it: a bad token is one clear error and exit 1 before
 * anything is taken; a missing token is a usage error; a forge answering 503 is printed and waited
 * out (the watch keeps running and takes the issue once the forge answers again).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeForge, startFakeForge } from '../forge/fake-forge/server.js';
import { gitIn, seedRemote } from '../forge/run-fixture.js';
import { colony } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { startWatch, waitFor } from './watch-helpers.js';

const TOKEN = 'gitea-token-watch-0042';
let forge: FakeForge;
let repo = '';
let args: string[] = [];
beforeAll(async () => {
  forge = await startFakeForge({ kind: 'gitea', token: TOKEN, repoPath: 'acme/hello' });
  repo = createUserRepo({ 'README.md': '# hello\n' }, 'colony-watch-errors-').dir;
  seedRemote(repo, forge.bare);
  gitIn(repo, 'remote', 'add', 'origin', forge.gitUrl);
  args = [
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
  ];
});
afterAll(async () => {
  await forge?.close();
  expect(forge.violations).toEqual([]);
});

describe('colony watch errors', () => {
  it('a bad token is a clear error, before any issue is read', async () => {
    const r = await colony(['watch', ...args], { env: { GITEA_TOKEN: 'not-the-token' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /colony: watch: the forge refused the token: check GITEA_TOKEN: GET \/api\/v1\/repos\/acme\/hello → 401: user does not exist/,
    );
    expect(forge.requests.filter((q) => q.path.endsWith('/issues'))).toEqual([]);
    expect(r.stderr + r.stdout).not.toContain('not-the-token');
  });

  it('a missing token, a wrong repository and bad flags are usage errors', async () => {
    const none = await colony(['watch', ...args], { env: { GITEA_TOKEN: '' } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/GITEA_TOKEN is not set/);
    const other = await colony(['watch', ...args.map((a) => (a === 'acme/hello' ? 'acme/other' : a))], {
      env: { GITEA_TOKEN: TOKEN },
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/is not acme\/other on .*the pull requests would go elsewhere/);
    const goal = await colony(['watch', ...args, '--goal', 'x'], { env: { GITEA_TOKEN: TOKEN } });
    expect(goal.code).toBe(2);
    expect(goal.stderr).toMatch(/Unknown option '--goal'/);
    const help = await colony(['watch', '--help']);
    expect(help.code).toBe(0);
    for (const flag of [
      '--forge KIND',
      '--repo OWNER/NAME',
      '--label L',
      '--max-runs K',
      '--stall-timeout D',
      '--poll D',
    ])
      expect(help.stdout).toContain(flag);
  });

  it('a forge answering 503 is waited out with a clear line, never an exit', async () => {
    forge.failNext('GET', /\/issues$/, 503, { message: 'Service Unavailable' });
    forge.failNext('GET', /\/issues$/, 503, { message: 'Service Unavailable' });
    const watch = startWatch([...args, '--poll', '100ms'], { GITEA_TOKEN: TOKEN });
    await waitFor(
      'two failures printed',
      () => (watch.output().match(/503/g) ?? []).length >= 2,
      watch,
      60_000,
    );
    await waitFor(
      'the issues read again',
      () => forge.requests.filter((q) => q.path.endsWith('/issues') && q.status === 200).length >= 1,
      watch,
      60_000,
    );
    expect(watch.output()).toMatch(
      /watch: the forge is failing: GET \/api\/v1\/repos\/acme\/hello\/issues → 503: Service Unavailable; trying again in 1 s/,
    );
    expect(watch.output()).toMatch(/trying again in 2 s/);
    watch.child.kill('SIGTERM');
    expect(await watch.closed).toBe(0);
  }, 120_000);
});
