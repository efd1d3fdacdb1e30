/**
 * The runs page's "Needs you" list in Chromium, against a real peers run (the built CLI on the fake
 * provider, `--approve-merges`, `--idle 1s`): peer-2 hangs in its first model call until the watchdog
 * declares it stalled, peer-1's merge request waits for approval. The list shows both, each linking
 * to the run (and the stalled agent to its page); the merge request's agent-written note is shown as
 * text (its markup makes no element). Once peer-2 answers and the merge is approved (`colony
 * approve`), neither is listed. Screenshot: $TMPDIR/colony-dashboard/needs-you.png.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, NO_API_KEYS, spawnColony } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { call, callsSoFar } from '../topology/peers-spec.js';
import { launchChromium } from './browser.js';
import { until as waitUntil } from './until.js';

const TOKEN = 'needs-you-token-0123456789abcdefghijklmnop';
const NOTE = 'fix alpha <img src=x onerror="window.__pwned=1">';
let store: Store;
let server: RunningServer;
let fake: FakeProvider;
let browser: Browser;
let child: ChildProcess | null = null;
let releasePeer2 = () => {};
const peer2Held = new Promise<void>((resolve) => {
  releasePeer2 = resolve;
});

beforeAll(async () => {
  store = await openTestStore();
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 100 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
  const policy: ScriptedPolicy = async (req) => {
    const id = /Your peer ID is (peer-\d+)\.$/.exec(req.system)?.[1];
    if (id === 'peer-2') {
      // peer-2 hangs in its first model call until the test lets it go.
      await peer2Held;
      return { text: 'peer-2: nothing left for me' };
    }
    const last = callsSoFar(req).at(-1);
    if (!last) return call('claim', { scope: 'src/alpha/', summary: 'fix alpha' });
    if (last.name === 'claim')
      return call('write', { path: 'src/alpha/value.txt', content: 'fixed alpha\n' });
    if (last.name === 'write') return call('merge_request', { note: NOTE });
    return { text: 'peer-1: fixed alpha' };
  };
  fake = await startFakeProvider({ policy });
  browser = await launchChromium();
});

afterAll(async () => {
  releasePeer2();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await browser?.close();
  await fake?.close();
  await server?.close();
  await store?.close();
});

/** This file's waits: at most 60_000 ms each unless a call says otherwise. */
const until = <T>(check: () => T | Promise<T>, what: string, timeoutMs = 60_000) =>
  waitUntil(check, what, timeoutMs);

describe('needs you', () => {
  it('lists a stalled agent and a waiting approval, each linking to its run, until they are settled', async () => {
    const repo = createUserRepo({ 'src/alpha/value.txt': 'broken\n' }, 'colony-dash-needs-');
    const run = spawnColony([
      'run',
      '--repo',
      repo.dir,
      '--goal',
      'Fix src/alpha: value.txt must read "fixed alpha".',
      '--topology',
      'peers',
      '--agents',
      '2',
      '--verify',
      'grep -qx "fixed alpha" src/alpha/value.txt',
      '--merge-verify',
      'true',
      '--approve-merges',
      '--idle',
      '1s',
      ...fakeModelFlags(fake.url),
      '--json',
    ]);
    child = run.child;
    const runId = await until(() => /"runId":"([^"]+)"/.exec(run.output())?.[1], 'the run id');

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url);
    const stalled = `#needs-you li[data-needs="agent_stalled"][data-run="${runId}"][data-agent="peer-2"]`;
    const approval = `#needs-you li[data-needs="approval_needed"][data-run="${runId}"]`;
    await page.waitForSelector(stalled, { timeout: 90_000 });
    await page.waitForSelector(approval, { timeout: 90_000 });
    expect(await page.textContent(`${stalled} .needs-kind`)).toBe('agent stalled');
    expect(await page.getAttribute(`${stalled} a.needs-agent`, 'href')).toBe(`/runs/${runId}/agents/peer-2`);
    expect(await page.getAttribute(`${approval} a.mono`, 'href')).toBe(`/runs/${runId}`);
    // The agent-written note is text: quoted as given, no element made of it.
    expect(await page.textContent(`${approval} .needs-what`)).toMatch(
      /^merge request #\d+ waits for approval: “fix alpha <img src=x onerror="window.__pwned=1">”$/,
    );
    expect(await page.locator('#needs-you img').count()).toBe(0);
    const dir = join(tmpdir(), 'colony-dashboard');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'needs-you.png'), fullPage: true });

    // The stalled agent's link opens its page in the run.
    await page.click(`${stalled} a.needs-agent`);
    await page.waitForURL(`**/runs/${runId}/agents/peer-2`);
    await page.waitForSelector('#transcript');
    await page.goBack();
    await page.waitForSelector(approval);

    // peer-2 answers (it moves again) and a person approves the merge: nothing waits any more.
    releasePeer2();
    const [waiting] = await store.log.read(runId, { kinds: ['merge.awaiting_approval'] });
    const approved = await colony(['approve', runId, String(waiting?.data.mr)], { env: NO_API_KEYS });
    expect(approved.code, approved.stderr).toBe(0);
    await page.waitForSelector(stalled, { state: 'detached', timeout: 30_000 });
    await page.waitForSelector(approval, { state: 'detached', timeout: 30_000 });
    expect(await run.closed).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);
});
