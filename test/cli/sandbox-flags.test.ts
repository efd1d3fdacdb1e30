/**
 * `colony run --sandbox on|auto|off`, end to end through the built CLI: the default contains the agent's
 * bash and the verify command (they see neither the state folder nor Colony's environment); a machine
 * without bubblewrap gets one clear error naming the package and `--sandbox off`; `--sandbox off` runs
 * uncontained and the summary warns.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/sandbox/detect.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, lastJsonLine } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';

const FAKE_KEY = 'sk-fake-cli-key-000111222';
const home = process.env.COLONY_HOME ?? '';
const outside = mkdtempSync(join(tmpdir(), 'colony-sandbox-outside-'));
writeFileSync(join(outside, 'secret.txt'), 'outside-secret\n');
// In the state folder, beside the runs (whose own checkout the sandbox does bind, with its parents).
const stateSecret = join(home, 'sandbox-test-secret');

/** One bash call that probes its surroundings, then an answer. */
const PROBE = [
  'env | cut -d= -f1 | sort | tr "\\n" " "',
  'echo',
  `ls ${home} | tr "\\n" " "`,
  'echo',
  `cat ${stateSecret} 2>&1`,
  `cat ${outside}/secret.txt 2>&1`,
  `echo hi > ${outside}/written 2>&1 || echo not-written`,
  'echo probed > probe.txt',
].join('; ');
// Passes only in the sandbox: no key in the environment and no state folder in sight.
const VERIFY = `test -z "$OPENAI_API_KEY" && test ! -e ${stateSecret} && test -f probe.txt`;

let fake: FakeProvider;
beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  writeFileSync(stateSecret, 'state-secret\n');
  fake = await startFakeProvider({
    policy: (request) =>
      request.messages.some((m) => m.role === 'tool')
        ? { text: 'probed' }
        : { toolCalls: [{ name: 'bash', arguments: { command: PROBE } }] },
  });
});
afterAll(async () => {
  await fake.close();
});

const run = (extra: string[], env: NodeJS.ProcessEnv = {}) =>
  colony(
    [
      'run',
      '--repo',
      createUserRepo({ 'README.md': '# r\n' }, 'colony-sandbox-cli-').dir,
      '--goal',
      'probe',
      '--model',
      'openai-chat:fake-model',
      '--base-url',
      fake.url,
      '--verify',
      VERIFY,
      ...extra,
    ],
    { env: { OPENAI_API_KEY: FAKE_KEY, ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '', ...env } },
  );

function bashOutput(stdout: string): string {
  const events = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { kind?: string; data?: { name?: string; content?: string } });
  return events.find((e) => e.kind === 'tool.finished' && e.data?.name === 'bash')?.data?.content ?? '';
}

describe('colony run --sandbox', () => {
  it('contains the agent and the verify command by default', async () => {
    const r = await run(['--json']);
    expect(r.stderr).toBe('');
    const out = bashOutput(r.stdout);
    expect(out.split('\n')[0]?.trim().split(' ')).toEqual(
      ['HOME', 'PATH', 'PWD', 'SHLVL', '_', ...['LANG', 'TERM'].filter((n) => process.env[n])].sort(),
    );
    // Of the state folder only the path to its own checkout is there.
    expect(out.split('\n')[1]).toBe('runs ');
    expect(out).toContain('sandbox-test-secret: No such file or directory');
    expect(out).toContain('secret.txt: No such file or directory');
    expect(out).toContain('not-written');
    const summary = lastJsonLine(r.stdout);
    expect(summary).toMatchObject({
      status: 'succeeded',
      verify: { passed: true },
      sandbox: { enabled: true, network: false, passEnv: [] },
    });
    expect(r.code).toBe(0);
  });

  it('passes variables by name and says so in the summary', async () => {
    const r = await run(['--pass-env', 'MY_SETTING', '--allow-network', '--json'], { MY_SETTING: 'x' });
    expect(bashOutput(r.stdout).split('\n')[0]).toContain(' MY_SETTING ');
    expect(lastJsonLine(r.stdout)).toMatchObject({
      status: 'succeeded',
      sandbox: { enabled: true, network: true, passEnv: ['MY_SETTING'] },
    });
    expect(r.code).toBe(0);
  });

  it('without bubblewrap: one clear error naming the package and --sandbox off', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'colony-no-bwrap-'));
    symlinkSync(findOnPath('git', process.env.PATH) ?? '/usr/bin/git', join(bin, 'git'));
    const r = await run([], { PATH: bin });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/bwrap.*not on PATH/);
    expect(lines[0]).toContain('Debian package bubblewrap');
    expect(lines[0]).toContain('--sandbox off');
    expect(r.stdout).toBe('');
    // auto says the same as a warning and runs uncontained (here it then stops at the verify, which needs bash).
    const auto = await run(['--sandbox', 'auto', '--json'], { PATH: bin });
    expect(auto.stderr).toMatch(/^warning: no sandbox \(--sandbox auto: .*bubblewrap/);
  });

  it('--sandbox off runs uncontained, and the summary warns', async () => {
    const r = await run(['--sandbox', 'off']);
    expect(r.stderr).toContain("warning: no sandbox (--sandbox off): agents' commands run uncontained");
    expect(r.stdout).toContain('warning: no sandbox (--sandbox off)');
    // Uncontained, the verify command sees the state folder: it fails.
    expect(r.stdout).toMatch(/verify: .* failed/);
    expect(r.code).not.toBe(0);
  });

  it('rejects a bad mode and a bad variable name', async () => {
    const bad = await run(['--sandbox', 'maybe']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--sandbox must be on, auto, off');
    const name = await run(['--pass-env', 'NOT-A-NAME']);
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('--pass-env needs a variable name');
  });
});
