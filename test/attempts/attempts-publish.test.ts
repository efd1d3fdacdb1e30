/**
 * `colony run --attempts N --push R --pr` publishes only the winner (fake Gitea, checked against its
 * OpenAPI description, and a real bare repository behind smart HTTP); and the judge runs in the
 * run's sandbox: it does not see a file of the host outside the attempt's checkout.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { type FakeForge, startFakeForge } from '../forge/fake-forge/server.js';
import { gitIn, remoteBranch, seedRemote } from '../forge/run-fixture.js';
import { colony, fakeModelFlags, NO_API_KEYS } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';

const TOKEN = 'gitea-token-attempts-0042';

/** Attempt k (the k-th first call) writes answer.txt with answers[k-1]. */
function perAttempt(answers: string[]): ScriptedPolicy {
  let attempts = 0;
  return (request) => {
    if (request.messages.some((m) => m.role === 'tool')) return { text: 'Done.' };
    const content = answers[attempts++];
    if (content === undefined) throw new Error(`no answer for attempt ${attempts}`);
    return { toolCalls: [{ name: 'write', arguments: { path: 'answer.txt', content } }] };
  };
}

interface JsonResult {
  group: string;
  attempts: Array<{
    index: number;
    runId: string;
    branch: string | null;
    judge: { score: number | null } | null;
  }>;
  winner: string | null;
}
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as JsonResult;

let forge: FakeForge;
const models: FakeProvider[] = [];
beforeAll(async () => {
  forge = await startFakeForge({ kind: 'gitea', token: TOKEN, repoPath: 'acme/hello' });
});
afterAll(async () => {
  for (const model of models) await model.close();
  await forge.close();
  expect(forge.violations).toEqual([]);
});

describe('colony run --attempts with --push and a sandboxed judge', () => {
  it('--push origin --pr publishes the winner only', async () => {
    const model = await startFakeProvider({ policy: perAttempt(['wrong\n', 'right\n']) });
    models.push(model);
    const repo = createUserRepo({ 'README.md': '# hello\n' }, 'colony-attempts-push-').dir;
    seedRemote(repo, forge.bare);
    gitIn(repo, 'remote', 'add', 'origin', forge.gitUrl);
    const r = await colony(
      [
        'run',
        '--repo',
        repo,
        '--goal',
        'Write answer.txt',
        ...fakeModelFlags(model.url),
        '--attempts',
        '2',
        '--attempts-concurrency',
        '1',
        '--verify',
        'grep -qx right answer.txt',
        '--sandbox',
        'auto',
        '--push',
        'origin',
        '--pr',
        '--forge',
        'gitea',
        '--forge-api',
        forge.apiBase,
        '--json',
      ],
      { env: { ...NO_API_KEYS, GITEA_TOKEN: TOKEN }, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const result = lastJson(r.stdout);
    const [winner, loser] = result.attempts;
    expect(winner?.index).toBe(2);
    expect(result.winner).toBe(winner?.runId);
    expect(remoteBranch(forge.bare, `colony/${winner?.runId}`)).toBe(
      gitIn(repo, 'rev-parse', `colony/${winner?.runId}`),
    );
    expect(remoteBranch(forge.bare, `colony/${loser?.runId}`)).toBeNull();
    expect(gitIn(repo, 'rev-parse', `colony/${loser?.runId}`)).toMatch(/^[0-9a-f]{40}$/);
    expect(forge.pulls).toEqual([expect.objectContaining({ head: `colony/${winner?.runId}`, base: 'main' })]);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  }, 300_000);

  it('the judge runs in the sandbox: a host file outside the checkout is not there for it', async () => {
    const model = await startFakeProvider({ policy: perAttempt(['right\n']) });
    models.push(model);
    const host = mkdtempSync(join(tmpdir(), 'colony-attempts-host-'));
    writeFileSync(join(host, 'secret.txt'), 'host file\n');
    const repo = createUserRepo({ 'README.md': '# hello\n' }, 'colony-attempts-judge-').dir;
    const judge = `if [ -e ${join(host, 'secret.txt')} ]; then echo 0; else echo 1; fi`;
    const r = await colony(
      [
        'run',
        '--repo',
        repo,
        '--goal',
        'Write answer.txt',
        ...fakeModelFlags(model.url),
        '--attempts',
        '1',
        '--sandbox',
        'on',
        '--judge',
        judge,
        '--json',
      ],
      { env: NO_API_KEYS, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(lastJson(r.stdout).attempts[0]?.judge?.score).toBe(1);
  }, 300_000);
});
