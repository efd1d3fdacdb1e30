/**
 * What the dashboard says of a run is true, in Chromium against runs of the built CLI on the fake
 * provider: a peers run's concurrency limit is the default 64 it ran with (not "∞"); an agent's step
 * lines count Anthropic's cache writes, which its cost includes; a run whose process was killed shows
 * as interrupted, with the `colony resume RUN` that finishes it, on its page and in the runs list.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS, spawnColony } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { launchChromium } from './browser.js';

let store: Store;
let server: RunningServer;
let fake: FakeProvider;
let looping: FakeProvider;
let browser: Browser;
const runs = { solo: '', peers: '', killed: '' };

// Lists the folder once, then answers. Every call writes and reads the prompt cache, as Anthropic's do.
const USAGE = { input: 100, cachedInput: 400, cacheWrite: 300, output: 10 };
const policy: ScriptedPolicy = (request) => {
  const answered = request.messages.some((m) => m.role === 'assistant');
  return { ...(answered ? { text: 'done' } : { toolCalls: [{ name: 'ls', arguments: {} }] }), usage: USAGE };
};

async function cli(args: string[]): Promise<string> {
  const r = await colony(args, { env: NO_API_KEYS, timeoutMs: 180_000 });
  if (r.code !== 0) throw new Error(`colony ${args[0]} exited ${r.code}: ${r.stderr}`);
  return String(lastJsonLine(r.stdout).runId);
}

beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy });
  // An agent that never finishes: it lists the folder forever.
  looping = await startFakeProvider({
    policy: () => ({ toolCalls: [{ name: 'ls', arguments: {} }] }),
    latencyMs: 150,
  });
  const started = await startServer({
    store,
    token: 'verdicts-token-0123456789abcdefghij',
    host: '127.0.0.1',
    port: 0,
  });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
  const repo = createUserRepo({ 'README.md': '# verdicts\n' }, 'colony-dash-verdicts-').dir;
  // Anthropic's protocol, which reports cache writes (cache_creation_input_tokens).
  runs.solo = await cli([
    'run',
    '--repo',
    repo,
    '--goal',
    'look around',
    '--model',
    'anthropic:fake-claude',
    '--base-url',
    fake.url,
    '--json',
  ]);
  runs.peers = await cli([
    'run',
    '--repo',
    repo,
    '--goal',
    'look around',
    '--topology',
    'peers',
    '--agents',
    '2',
    '--verify',
    'true',
    ...fakeModelFlags(fake.url),
    '--json',
  ]);
  const killed = spawnColony([
    'run',
    '--repo',
    repo,
    '--goal',
    'loop',
    ...fakeModelFlags(looping.url),
    '--json',
  ]);
  const end = Date.now() + 60_000;
  while (!killed.output().includes('"kind":"model.response"')) {
    if (Date.now() > end) throw new Error(`the looping run made no step: ${killed.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  runs.killed = /"runId":"([^"]+)"/.exec(killed.output())?.[1] ?? '';
  killed.child.kill('SIGKILL');
  await killed.closed;
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  // The killed run is finished, so it is not left behind.
  if (runs.killed) await colony(['stop', runs.killed]);
  await browser?.close();
  await server?.close();
  await looping?.close();
  await fake?.close();
  await store?.close();
});

async function open(path: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}${path}`);
  return { page, errors };
}

describe('the dashboard tells the truth', () => {
  it("shows a peers run's default concurrency as 64, not ∞", async () => {
    const { page, errors } = await open(`/runs/${runs.peers}`);
    await page.waitForSelector('[data-limit="concurrency"]');
    expect(await page.textContent('[data-limit="concurrency"] .limit-val')).toMatch(/^\d+ \/ 64 agents$/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("counts cache writes in an agent's step lines", async () => {
    const { page, errors } = await open(`/runs/${runs.solo}/agents/solo`);
    await page.waitForSelector('#transcript [data-kind="model.response"]');
    const line = await page.textContent('#transcript [data-kind="model.response"] .t-head');
    expect(line).toContain('100 in (400 cached, 300 cache writes) · 10 out');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a killed run as interrupted, with the command that finishes it', async () => {
    const { page, errors } = await open(`/runs/${runs.killed}`);
    await page.waitForSelector('.run-head [data-status="interrupted"]');
    expect(await page.textContent('#run-note')).toContain(`colony resume ${runs.killed}`);
    // Nothing runs it: no "● live" in the title.
    expect(await page.title()).not.toContain('●');
    await page.close();
    const list = await open('/');
    await list.page.waitForSelector(`[data-run="${runs.killed}"] [data-status="interrupted"]`);
    expect(await list.page.textContent(`[data-run="${runs.solo}"] [data-status]`)).toBe('succeeded');
    expect([...errors, ...list.errors]).toEqual([]);
    await list.page.close();
  }, 60_000);
});
