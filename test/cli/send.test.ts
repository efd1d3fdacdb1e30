/**
 * `colony send` through the built CLI: a message no agent would read is refused with the reason (exit
 * 1, nothing logged), the same check the dashboard's endpoint makes (topology/team/recipients.ts): a channel
 * message to a solo run (its agent has no gather step), to a named channel nobody joined, anything
 * to a finished run. A message to a run whose process is gone is kept, and the sender is told that it
 * is read only once the run is resumed. Live runs: looping agents on the fake provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, type SpawnedColony, spawnColony } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let fake: FakeProvider;
const LATE_NOTE = 'when you are back, read the README';
/** Whether a model request carried LATE_NOTE (sent while the run's process was gone). */
let lateNoteRead = false;
let store: Store;
const live: SpawnedColony[] = [];

beforeAll(async () => {
  // Agents that never finish: they list the folder forever.
  fake = await startFakeProvider({
    policy: (request) => {
      if (JSON.stringify(request.messages).includes(LATE_NOTE)) lateNoteRead = true;
      return { toolCalls: [{ name: 'ls', arguments: {} }] };
    },
    latencyMs: 150,
  });
  store = await openTestStore();
});
afterAll(async () => {
  for (const run of live) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  await Promise.all(live.map((run) => run.closed));
  await store?.close();
  await fake?.close();
});

async function startRun(extra: string[]): Promise<{ run: SpawnedColony; runId: string }> {
  const repo = createUserRepo({ 'README.md': '# send\n' }, 'colony-send-').dir;
  const run = spawnColony([
    'run',
    '--repo',
    repo,
    '--goal',
    'loop',
    ...fakeModelFlags(fake.url),
    '--json',
    ...extra,
  ]);
  live.push(run);
  const end = Date.now() + 60_000;
  while (!run.output().includes('"kind":"model.response"')) {
    if (Date.now() > end) throw new Error(`no step: ${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { run, runId: /"runId":"([^"]+)"/.exec(run.output())?.[1] ?? '' };
}

async function sentMessages(runId: string): Promise<number> {
  return (await store.log.read(runId, { kinds: ['message.sent'] })).length;
}

describe('colony send', () => {
  it('refuses a channel message to a solo run, saying why, and logs nothing', async () => {
    const { runId } = await startRun([]);
    for (const channel of ['all', 'dev']) {
      const r = await colony(['send', runId, '--channel', channel, 'please', 'hurry']);
      expect(r.code, r.stdout).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^colony: send: no agent of run ${runId} would read`, 'm'));
      expect(r.stderr).toMatch(/--to AGENT/);
    }
    expect(r2(await colony(['send', runId, '--to', 'solo', 'please hurry']))).toMatch(
      /sent message \d+ to agent solo/,
    );
    expect(await sentMessages(runId)).toBe(1);
  }, 120_000);

  it('refuses a named channel nobody joined in a peers run, takes #all', async () => {
    const { runId } = await startRun(['--topology', 'peers', '--agents', '2', '--verify', 'false']);
    const nobody = await colony(['send', runId, '--channel', 'dev', 'hello']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/would read channel "dev": no agent has joined it/);
    expect(r2(await colony(['send', runId, '--channel', 'all', 'hello']))).toMatch(/to channel all/);
    expect(await sentMessages(runId)).toBe(1);
  }, 120_000);

  it('refuses any message to a finished run; tells the sender a killed run reads it only once resumed', async () => {
    const { run, runId } = await startRun([]);
    run.child.kill('SIGKILL');
    await run.closed;
    const kept = await colony(['send', runId, '--to', 'solo', LATE_NOTE]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(/sent message \d+ to agent solo/);
    expect(kept.stdout).toContain(`run ${runId} is interrupted`);
    expect(kept.stdout).toContain(`colony resume ${runId}`);
    // As said: the resumed agent reads it.
    const resumed = spawnColony(['resume', runId, '--json']);
    live.push(resumed);
    const end = Date.now() + 60_000;
    while (!lateNoteRead) {
      if (Date.now() > end) throw new Error(`the resumed agent never read the message: ${resumed.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await colony(['stop', runId])).code).toBe(0);
    await resumed.closed;
    const refused = await colony(['send', runId, '--channel', 'all', 'too late']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/has finished \(stopped\); no agent would read the message/);
    expect(await sentMessages(runId)).toBe(1);
  }, 120_000);
});

/** A command's stdout, after checking it succeeded. */
function r2(r: { code: number; stdout: string; stderr: string }): string {
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}
