/**
 * A run succeeds only when its goal is met by work that landed and verified (issue 33). The built CLI
 * against the fake provider: a peers run whose every peer failed — the provider answering 500 to
 * every call, or an external agent (`cmd:`) exiting 3 — ends failed with the reason, exit 1, even
 * though its verify command (which checks nothing of the goal) passes on an untouched main.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({
    policy: () => ({ text: 'never answered' }),
    failures: () => ({ status: 500, message: 'the provider is down' }),
  });
});
afterAll(async () => {
  await fake.close();
});

const repo = () => createUserRepo({ 'README.md': '# nothing to do\n' }, 'colony-verdict-').dir;

/** No retries: a failed call fails its peer at once (the verdict, not the back-off, is under test). */
function noRetries(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'colony-verdict-config-')), 'colony.json');
  writeFileSync(file, JSON.stringify({ maxRetries: 0 }));
  return file;
}

async function peersRun(extra: string[]) {
  const r = await colony(
    [
      'run',
      '--repo',
      repo(),
      '--goal',
      'add a CHANGELOG',
      '--topology',
      'peers',
      '--agents',
      '2',
      '--verify',
      'true',
      '--sandbox',
      'off',
      '--json',
      '--config',
      noRetries(),
      ...fakeModelFlags(fake.url),
      ...extra,
    ],
    { env: { ...NO_API_KEYS, OPENAI_API_KEY: 'sk-test' }, timeoutMs: 180_000 },
  );
  return { ...r, summary: lastJsonLine(r.stdout) };
}

describe('a peers run where every peer failed', () => {
  it('fails when the provider answers 500 to every call', async () => {
    const r = await peersRun(['--max-steps', '3']);
    expect(r.summary.status, JSON.stringify(r.summary)).toBe('failed');
    expect(String(r.summary.reason)).toMatch(/every peer failed|no work landed/);
    expect(r.code).toBe(1);
  }, 180_000);

  it('fails when an external agent exits 3', async () => {
    const r = await peersRun(['--agent-cli', 'cmd:sh -c "echo giving up; exit 3"']);
    expect(r.summary.status, JSON.stringify(r.summary)).toBe('failed');
    expect(String(r.summary.reason)).toMatch(/every peer failed|no work landed/);
    expect(r.code).toBe(1);
  }, 180_000);
});
