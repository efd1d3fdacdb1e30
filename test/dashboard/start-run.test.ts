/**
 * Starting a run from the dashboard, in Chromium against `colony serve` (the built CLI, as a person
 * runs it: its environment points OpenAI-chat models at the fake provider, OPENAI_BASE_URL, with no
 * vendor keys):
 * - without the token the New run form says what is missing and cannot start anything;
 * - a folder that is not a git repository is refused with the spec builder's words in the form, and
 *   no run starts;
 * - a good form starts the run, the page opens its live page and follows it (its agent thinking while
 *   its model call is held, the agent's model in the agents table) until it has succeeded.
 * Screenshot: $TMPDIR/colony-dashboard/new-run.png.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { COLONY_BIN, NO_API_KEYS } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { request } from '../server/http-client.js';
import { launchChromium } from './browser.js';
import { until as waitUntil } from './until.js';

const MODEL = 'openai-chat:fake-model';
let fake: FakeProvider;
let browser: Browser;
let serve: ChildProcess | null = null;
let url = '';
let token = '';
let release = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});
let heldCallArrived = false;

beforeAll(async () => {
  // The agent's first model call waits until the test has seen it thinking on its page.
  fake = await startFakeProvider({
    policy: async () => {
      heldCallArrived = true;
      await held;
      return { text: 'done: nothing needed changing' };
    },
  });
  const child = spawn(process.execPath, [COLONY_BIN, 'serve', '--port', '0', '--no-auto-resume'], {
    env: { ...process.env, ...NO_API_KEYS, OPENAI_BASE_URL: fake.url },
  });
  serve = child;
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.once('close', (code) => reject(new Error(`colony serve exited ${code}: ${out}`)));
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(out);
      if (m?.[1] && m[2]) {
        url = m[1];
        token = m[2];
        resolve();
      }
    });
  });
  browser = await launchChromium();
});

afterAll(async () => {
  release();
  await browser?.close();
  if (serve && serve.exitCode === null) serve.kill('SIGTERM');
  await fake?.close();
});

/** This file's waits: at most 60_000 ms each unless a call says otherwise. */
const until = <T>(check: () => T | Promise<T>, what: string, timeoutMs = 60_000) =>
  waitUntil(check, what, timeoutMs);

async function runsWithGoal(goal: string): Promise<number> {
  const r = await request(url, 'GET', '/api/runs?limit=1000');
  return (r.body.runs as Array<{ goal: string }>).filter((run) => run.goal === goal).length;
}

async function openForm(page: Page): Promise<void> {
  await page.waitForSelector('#new-run-panel summary');
  await page.click('#new-run-panel summary');
  await page.waitForSelector('#nr-repo', { state: 'visible' });
}

describe('starting a run from the dashboard', () => {
  it('without the token the form says what is missing', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    await openForm(page);
    expect(await page.isDisabled('#nr-start')).toBe(true);
    expect(await page.getAttribute('#nr-start', 'title')).toBe('needs the server token');
    expect(await page.textContent('#nr-token-missing')).toMatch(/needs the server token/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('refuses a folder that is not a git repository with the builder’s words, then starts a run and follows it live', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}/#token=${token}`);
    await page.waitForFunction(() => location.hash === '' && sessionStorage.getItem('colony.token') !== null);
    await openForm(page);
    expect(await page.isDisabled('#nr-start')).toBe(false);
    // The model list offers the catalog's models and the scripted one.
    const offered = await page.$$eval('#nr-models option', (els) =>
      els.map((e) => (e as HTMLOptionElement).value),
    );
    expect(offered).toEqual(expect.arrayContaining(['gpt-5', 'claude-sonnet-4-5', 'scripted']));

    const notGit = mkdtempSync(join(tmpdir(), 'colony-not-git-'));
    const badGoal = `refused from the page ${Date.now()}`;
    await page.fill('#nr-repo', notGit);
    await page.fill('#nr-goal', badGoal);
    await page.fill('#nr-model', MODEL);
    await page.click('#nr-start');
    await page.waitForSelector('#nr-error:not(:empty)');
    expect(await page.textContent('#nr-error')).toBe(`not a git repository: ${notGit}`);
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await runsWithGoal(badGoal)).toBe(0);

    const repo = createUserRepo({ 'README.md': '# started from the page\n' }, 'colony-dash-start-').dir;
    const goal = `started from the page ${Date.now()}`;
    await page.fill('#nr-repo', repo);
    await page.fill('#nr-goal', goal);
    await page.fill('#nr-budget-tokens', '200000');
    await page.click('#nr-start');
    await page.waitForURL(/\/runs\/r-[0-9a-z]+-[0-9a-f]{6}$/, { timeout: 90_000 });
    const runId = new URL(page.url()).pathname.split('/').at(-1) ?? '';

    // Live: its agent thinks while its model call is held, with its model in the agents table.
    await until(() => heldCallArrived, 'the run’s first model call');
    await page.waitForSelector('[data-agent][data-state="thinking"]', { timeout: 60_000 });
    await page.waitForFunction(() => document.getElementById('live')?.textContent === '● live');
    expect(await page.getAttribute('[data-agent] .a-model', 'data-model')).toBe(MODEL);
    const dir = join(tmpdir(), 'colony-dashboard');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'new-run.png'), fullPage: true });
    release();
    await page.waitForSelector('.run-head [data-status="succeeded"]', { timeout: 60_000 });
    const run = await request(url, 'GET', `/api/runs/${runId}`);
    expect(run.body).toMatchObject({ status: 'succeeded', goal });
    expect(await runsWithGoal(goal)).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
