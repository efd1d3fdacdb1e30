/**
 * `colony stop` and `--deadline`, through the built CLI against a looping agent on the fake provider:
 * a live run stops within a poll interval as `stopped` (no result branch: it landed nothing); a run whose
 * process was killed is marked stopped at once; a run past its deadline ends as `deadline_exceeded`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import {
  colony,
  fakeModelFlags,
  lastJsonLine,
  NO_API_KEYS,
  type SpawnedColony,
  spawnColony,
} from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';

let fake: FakeProvider;

beforeAll(async () => {
  // An agent that never finishes: it lists the folder forever.
  fake = await startFakeProvider({
    policy: () => ({ toolCalls: [{ name: 'ls', arguments: {} }] }),
    latencyMs: 150,
  });
});
afterAll(async () => {
  await fake.close();
});

function startLoopingRun(extra: string[] = []): SpawnedColony {
  const repo = createUserRepo({ 'README.md': '# loop\n' }, 'colony-stop-').dir;
  return spawnColony([
    'run',
    '--repo',
    repo,
    '--goal',
    'loop',
    ...fakeModelFlags(fake.url),
    '--json',
    ...extra,
  ]);
}

async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const runIdOf = (stdout: string) => /"runId":"([^"]+)"/.exec(stdout)?.[1] ?? '';
const steps = (stdout: string) => (stdout.match(/"kind":"model.response"/g) ?? []).length;

describe('colony stop', () => {
  it('stops a live run from another process: status stopped, reason names the stopper', async () => {
    const run = startLoopingRun();
    await until(() => steps(run.output()) >= 2);
    const runId = runIdOf(run.output());
    const stopped = await colony(['stop', runId, '--reason', 'enough']);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toMatch(/asked run .* to stop/);
    expect(await run.closed).toBe(1);
    const summary = lastJsonLine(run.output());
    expect(summary).toMatchObject({ status: 'stopped', reason: 'stopped by cli: enough' });
    // The agent only listed files: nothing landed, so the run made no branch in the repository.
    expect(summary.resultBranch).toBeNull();
    const again = await colony(['stop', runId]);
    expect(again.stdout).toMatch(/already finished \(stopped\)/);
  }, 120_000);

  it('marks a run whose process was killed as stopped at once', async () => {
    const run = startLoopingRun();
    await until(() => steps(run.output()) >= 1);
    const runId = runIdOf(run.output());
    run.child.kill('SIGKILL');
    await run.closed;
    const stopped = await colony(['stop', runId]);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toMatch(/had no live process; marked stopped/);
    const show = await colony(['show', runId, '--json']);
    expect(lastJsonLine(show.stdout)).toMatchObject({ status: 'stopped' });
  }, 120_000);

  it('names an unknown run', async () => {
    const r = await colony(['stop', 'no-such-run']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no run no-such-run/);
  });
});

describe('colony run --deadline', () => {
  it('ends a run that outlives its deadline as deadline_exceeded', async () => {
    const run = startLoopingRun(['--deadline', '2s']);
    expect(await run.closed).toBe(1);
    const summary = lastJsonLine(run.output());
    expect(summary, JSON.stringify(summary)).toMatchObject({ status: 'deadline_exceeded' });
    // Said as a clock time a person reads, not as an ISO timestamp.
    expect(summary.reason).toMatch(
      /^its deadline passed \(--deadline: it could run until \d\d:\d\d:\d\d UTC on \d{4}-\d\d-\d\d\)$/,
    );
  }, 120_000);

  it('rejects a malformed deadline with a usage error', async () => {
    const r = await colony(['run', '--goal', 'x', '--deadline', 'soon'], { env: NO_API_KEYS });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/deadline: expected a duration like 90s/);
  });
});
