/**
 * A run whose process was killed (kill -9) is not "running": nothing holds its run lock any more, so
 * `colony runs`, `colony show` and the dashboard's API say it was interrupted and that `colony resume
 * RUN` finishes it, and `colony logs --follow` ends instead of waiting forever. A live run next to it
 * still shows as running. The built CLI against a looping agent on the fake provider; the API from a
 * real server on the same database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, type SpawnedColony, spawnColony } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { request } from '../server/http-client.js';

const TOKEN = 'interrupted-run-token-0123456789abcdefghij';
let fake: FakeProvider;
let store: Store;
let server: RunningServer;
const live: SpawnedColony[] = [];

beforeAll(async () => {
  // An agent that never finishes: it lists the folder forever.
  fake = await startFakeProvider({
    policy: () => ({ toolCalls: [{ name: 'ls', arguments: {} }] }),
    latencyMs: 150,
  });
  store = await openTestStore();
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 100 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
});
afterAll(async () => {
  for (const run of live) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  await server?.close();
  await store?.close();
  await fake?.close();
});

function startLoopingRun(): SpawnedColony {
  const repo = createUserRepo({ 'README.md': '# loop\n' }, 'colony-interrupted-').dir;
  const run = spawnColony(['run', '--repo', repo, '--goal', 'loop', ...fakeModelFlags(fake.url), '--json']);
  live.push(run);
  return run;
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

async function listedStatus(runId: string): Promise<unknown> {
  const listed = await colony(['runs', '--json', '--limit', '500']);
  const runs = JSON.parse(listed.stdout) as Array<{ runId: string; status: string }>;
  return runs.find((r) => r.runId === runId)?.status;
}

describe('a run whose process was killed', () => {
  it('shows as interrupted with the resume hint in runs, show and the API; logs --follow ends', async () => {
    const killed = startLoopingRun();
    const alive = startLoopingRun();
    await until(() => steps(killed.output()) >= 1 && steps(alive.output()) >= 1);
    const runId = runIdOf(killed.output());
    const aliveId = runIdOf(alive.output());
    expect(await listedStatus(runId)).toBe('running');
    killed.child.kill('SIGKILL');
    await killed.closed;

    // colony runs: the killed run is interrupted, the live one still running.
    expect(await listedStatus(runId)).toBe('interrupted');
    expect(await listedStatus(aliveId)).toBe('running');
    const table = await colony(['runs', '--limit', '500']);
    expect(table.stdout).toMatch(new RegExp(`${runId}  interrupted`));
    expect(table.stdout).toContain(`colony resume ${runId}`);
    expect(table.stdout).toMatch(new RegExp(`${aliveId}  running`));

    // colony show: the verdict line says what happened and what to do.
    const show = await colony(['show', runId]);
    expect(show.code).toBe(0);
    expect(show.stdout.split('\n')[0]).toMatch(
      new RegExp(`^run ${runId}: interrupted — .*process.*colony resume ${runId}`),
    );
    expect(lastJsonLine((await colony(['show', runId, '--json'])).stdout)).toMatchObject({
      status: 'interrupted',
    });
    expect(lastJsonLine((await colony(['show', aliveId, '--json'])).stdout)).toMatchObject({
      status: 'running',
    });

    // colony logs --follow ends on an interrupted run (it used to wait forever), saying why.
    const started = Date.now();
    const follow = await colony(['logs', runId, '--follow'], { timeoutMs: 30_000 });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(follow.code).toBe(0);
    expect(follow.stdout.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`interrupted.*colony resume ${runId}`),
    );

    // The dashboard's API: the runs list and the run's view.
    const list = await request(server.url, 'GET', '/api/runs?limit=500', { token: TOKEN });
    const items = list.body.runs as Array<{ runId: string; status: string }>;
    expect(items.find((r) => r.runId === runId)?.status).toBe('interrupted');
    expect(items.find((r) => r.runId === aliveId)?.status).toBe('running');
    const view = await request(server.url, 'GET', `/api/runs/${runId}`, { token: TOKEN });
    expect(view.body.status).toBe('interrupted');
    expect(String(view.body.reason)).toContain(`colony resume ${runId}`);
    const agent = await request(server.url, 'GET', `/api/runs/${runId}/agents/solo`, { token: TOKEN });
    expect(agent.body.runStatus).toBe('interrupted');

    // Both are ended here so they are not left behind: stop finishes the orphan at once.
    expect((await colony(['stop', runId])).stdout).toMatch(/marked stopped/);
    alive.child.kill('SIGKILL');
    await alive.closed;
  }, 180_000);
});
