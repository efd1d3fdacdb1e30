/**
 * The built CLI: `colony run … --push origin --pr` (a scripted solo run that writes a file, then
 * publishes its result on the fake Gitea) and `colony publish RUN` (again: idempotent, and --json),
 * `colony publish --help`, and the usage errors of the publish flags.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { type FakeForge, startFakeForge } from './fake-forge/server.js';
import { gitIn, remoteBranch, seedRemote } from './run-fixture.js';

const TOKEN = 'gitea-token-cli-0042';
const policy: ScriptedPolicy = (request) => {
  const toolResults = request.messages.filter((m) => m.role === 'tool').length;
  if (toolResults === 0)
    return { toolCalls: [{ name: 'write', arguments: { path: 'hello.txt', content: 'hi\n' } }] };
  return { text: 'Wrote hello.txt.' };
};

let model: FakeProvider;
let forge: FakeForge;
beforeAll(async () => {
  model = await startFakeProvider({ policy });
  forge = await startFakeForge({ kind: 'gitea', token: TOKEN, repoPath: 'acme/hello', labels: ['colony'] });
});
afterAll(async () => {
  await model.close();
  await forge.close();
  expect(forge.violations).toEqual([]);
});

describe('colony run --push and colony publish', () => {
  let runId = '';
  let repo = '';

  it('colony run --push origin --pr publishes the result when the run lands it', async () => {
    repo = createUserRepo({ 'README.md': '# hello\n' }, 'colony-cli-publish-').dir;
    seedRemote(repo, forge.bare);
    gitIn(repo, 'remote', 'add', 'origin', forge.gitUrl);
    const forgeFlags = ['--forge', 'gitea', '--forge-api', forge.apiBase];
    const r = await colony(
      [
        'run',
        '--repo',
        repo,
        '--goal',
        'Say hello',
        ...fakeModelFlags(model.url),
        '--verify',
        'test -f hello.txt',
        '--sandbox',
        'auto',
        '--push',
        'origin',
        '--pr',
        '--label',
        'colony',
        ...forgeFlags,
      ],
      { env: { ...NO_API_KEYS, GITEA_TOKEN: TOKEN } },
    );
    expect(r.code, r.stderr).toBe(0);
    runId = /run (r-[\w-]+)/.exec(r.stdout)?.[1] ?? '';
    expect(runId).not.toBe('');
    const branch = `colony/${runId}`;
    expect(r.stdout).toContain(`pushed ${branch}`);
    expect(r.stdout).toMatch(
      new RegExp(`opened pull request #1 \\(${branch} → main\\): ${forge.origin}/acme/hello/pulls/1`),
    );
    expect(remoteBranch(forge.bare, branch)).toBe(gitIn(repo, 'rev-parse', branch));
    expect(forge.pulls).toEqual([
      expect.objectContaining({ head: branch, base: 'main', draft: false, labels: ['colony'] }),
    ]);
    expect(forge.pulls[0]?.body).toContain('| verify | `test -f hello.txt` → passed');
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it('colony publish RUN again changes nothing and says so (--json)', async () => {
    const r = await colony(
      ['publish', runId, '--pr', '--forge', 'gitea', '--forge-api', forge.apiBase, '--json'],
      { env: { GITEA_TOKEN: TOKEN } },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = lastJsonLine(r.stdout);
    expect(out.pushed).toEqual([expect.objectContaining({ branch: `colony/${runId}`, created: false })]);
    expect(out.pullRequests).toEqual([expect.objectContaining({ number: 1, existing: true })]);
    expect(forge.pulls).toHaveLength(1);
  });

  it('colony publish fails clearly without the token, and on a run that does not exist', async () => {
    const noToken = await colony(
      ['publish', runId, '--pr', '--forge', 'gitea', '--forge-api', forge.apiBase],
      {
        env: { GITEA_TOKEN: '' },
      },
    );
    expect(noToken.code).not.toBe(0);
    expect(noToken.stderr).toMatch(/GITEA_TOKEN is not set/);
    const none = await colony(['publish', 'r-does-not-exist']);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/no such run: r-does-not-exist/);
  });

  it('documents itself and refuses publish flags without --push', async () => {
    const help = await colony(['publish', '--help']);
    expect(help.code).toBe(0);
    for (const flag of [
      '--remote REMOTE',
      '--pr',
      '--draft',
      '--label L',
      '--reviewer R',
      '--per-merge-request',
      '--forge KIND',
      '--forge-api URL',
      'GITHUB_TOKEN',
      'docs/forges.md',
    ])
      expect(help.stdout).toContain(flag);
    const runHelp = await colony(['run', '--help']);
    expect(runHelp.stdout).toContain('--push REMOTE');
    const orphan = await colony(['run', '--repo', repo, '--goal', 'g', '--pr']);
    expect(orphan.code).not.toBe(0);
    expect(orphan.stderr).toMatch(/--pr need --push REMOTE/);
    const noPr = await colony(['publish', runId, '--label', 'x']);
    expect(noPr.stderr).toMatch(/--draft, --label and --reviewer need --pr/);
  });
});
