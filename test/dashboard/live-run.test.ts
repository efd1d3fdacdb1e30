/**
 * The dashboard end to end in a real browser: a peers run (the built CLI, 3 agents) against the fake
 * provider with latency stays running; the page shows its agents changing state live (SSE), a
 * direct message typed into the page reaches that agent's next model request, the Stop button
 * ends the run. Screenshot: $TMPDIR/colony-dashboard/run.png.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDir } from '../../src/core/home.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { fakeModelFlags, spawnColony } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { launchChromium } from './browser.js';
import { until as waitUntil } from './until.js';

const TOKEN = 'e2e-token-0123456789abcdefghijklmnopqrstuvwxyz';
const NOTE = 'dashboard says: please look at the README first';
let store: Store;
let server: RunningServer;
let fake: FakeProvider;
let browser: Browser;
let child: ChildProcess | null = null;
let liveRunId = '';
// In peer-2's own worktree: the one folder of the host its (sandboxed) bash sees.
const RELEASE = '.dashboard-test-release';
const modelHeld = promiseWithResolvers();
let heldCallArrived = false;

function promiseWithResolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function waitForFile(path: string): string {
  return `until [ -e '${path}' ]; do sleep 0.1; done; echo released`;
}

beforeAll(async () => {
  store = await openTestStore();
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 100 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
  // Peers that never finish: each lists the folder, then reads files, forever (slowly). peer-2's
  // second model call is held until the test releases it, and its answer is a bash command that
  // waits for a file the test creates: the page must show each of those states, and each lasts
  // until the test moves on, however slow the machine.
  fake = await startFakeProvider({
    policy: async (request) => {
      const n = request.messages.filter((m) => m.role === 'assistant').length;
      if (/peer-2/.test(request.system ?? '') && n === 1) {
        heldCallArrived = true;
        await modelHeld.promise;
        return { toolCalls: [{ name: 'bash', arguments: { command: waitForFile(RELEASE) } }] };
      }
      return {
        toolCalls: [
          { name: n % 2 === 0 ? 'ls' : 'read', arguments: n % 2 === 0 ? {} : { path: 'README.md' } },
        ],
      };
    },
    latencyMs: 250,
  });
  browser = await launchChromium();
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await browser?.close();
  await fake?.close();
  await server?.close();
  await store?.close();
});

/** This file's waits: at most 60_000 ms each unless a call says otherwise. */
const until = <T>(check: () => T | Promise<T>, what: string, timeoutMs = 60_000) =>
  waitUntil(check, what, timeoutMs);

describe('dashboard in Chromium', () => {
  it('follows a running swarm live, delivers a direct message from the page, stops the run', async () => {
    const repo = createUserRepo({ 'README.md': '# e2e\n' }, 'colony-dash-').dir;
    const run = spawnColony([
      'run',
      '--repo',
      repo,
      '--goal',
      'loop',
      '--topology',
      'peers',
      '--agents',
      '3',
      '--verify',
      'true',
      // The peers must still be running when the page sends its message and presses Stop, however
      // slow the machine: no step cap within reach (the default 100 steps is ~30 s at this latency).
      '--max-steps',
      '100000',
      // peer-2's bash waits for a file this test creates in its own temp folder: the run is not
      // contained, since a sandbox's /tmp is private (containment has its own tests, test/sandbox/).
      '--sandbox',
      'off',
      ...fakeModelFlags(fake.url),
      '--json',
    ]);
    child = run.child;
    const { closed } = run;
    const runId = await until(() => /"runId":"([^"]+)"/.exec(run.output())?.[1], 'the run id');
    liveRunId = runId;

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${server.url}/runs/${runId}#token=${TOKEN}`);
    // The token moved from the fragment to sessionStorage.
    await page.waitForFunction(() => location.hash === '' && sessionStorage.getItem('colony.token') !== null);
    await page.waitForSelector('[data-agent="peer-2"]', { timeout: 60_000 });
    // The run is not contained (--sandbox off): the Sandbox card warns.
    expect(await page.textContent('[data-sandbox="off"]')).toBe('OFF');
    expect(await page.getAttribute('[data-sandbox="off"]', 'title')).toMatch(
      /^warning: no sandbox \(--sandbox off\)/,
    );

    // Agents change state live (SSE): peer-2 shows 'thinking' while its model call is held, then
    // 'tool' while its bash waits for the release file; each state holds until the test moves on.
    const stateOf = (agent: string) =>
      page.getAttribute(`[data-agent="${agent}"]`, 'data-state', { timeout: 60_000 });
    await until(() => heldCallArrived, "peer-2's held model call");
    await until(async () => (await stateOf('peer-2')) === 'thinking', 'peer-2 thinking');
    modelHeld.resolve();
    await until(async () => (await stateOf('peer-2')) === 'tool', 'peer-2 running its tool');
    writeFileSync(join(runDir(process.env.COLONY_HOME ?? '', runId), 'worktrees', 'peer-2', RELEASE), '');
    const names = await page.$$eval('[data-agent]', (els) => els.map((e) => e.getAttribute('data-agent')));
    expect(names.sort()).toEqual(['peer-1', 'peer-2', 'peer-3']);

    // A direct message from the page reaches peer-2's next model request.
    const before = fake.requests().length;
    await page.selectOption('#msg-to', 'peer-2');
    await page.fill('#msg-text', NOTE);
    await page.click('#msg-send');
    const hit = await until(
      () =>
        fake
          .requests()
          .slice(before)
          .find((r) => JSON.stringify(r.request?.messages ?? []).includes(NOTE)),
      'the message in a model request',
    );
    expect(hit.request?.system).toMatch(/peer-2/);
    // It shows in the page's messages feed too.
    await page.waitForSelector(`.msg-text:has-text("${NOTE}")`);

    const dir = join(tmpdir(), 'colony-dashboard');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'run.png'), fullPage: true });

    // Stop from the page: the run's process ends it as stopped.
    await page.click('#stop');
    expect(await closed).toBe(1);
    await page.waitForSelector('.run-head [data-status="stopped"]', { timeout: 30_000 });
    // Its agents show as stopped, not failed (agent.finished 'stopped', or unfinished in a stopped run).
    await page.waitForSelector('[data-agent][data-state="stopped"]', { timeout: 30_000 });
    expect(await page.locator('[data-agent][data-state="failed"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('lists runs and opens an agent transcript', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForSelector(`tr[data-run="${liveRunId}"]`);
    await page.locator(`tr[data-run="${liveRunId}"] a`).click();
    await page.waitForSelector('[data-agent]');
    await page.locator('[data-agent="peer-1"]').click();
    await page.waitForSelector('#transcript [data-kind="model.response"]');
    // The run was stopped: the agent's badge says so (not "failed").
    await page.waitForSelector('.run-head [data-status="stopped"]');
    expect(await page.locator('#transcript [data-kind="tool.finished"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(tmpdir(), 'colony-dashboard', 'agent.png') });
    await page.close();
  }, 60_000);
});
