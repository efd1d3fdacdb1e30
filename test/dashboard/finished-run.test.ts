/**
 * What a newcomer sees of finished runs in the dashboard, in Chromium: a peers run (the built CLI, 2
 * peers on the fake provider's unpriced model) whose merges landed, an orchestrated demo run and a
 * read-only solo run. Nothing invents a cost ($0.00 for an unpriced model), a peer's landed merges
 * are its commits, a finished run opens no event stream and says nothing is live, a solo run has no
 * peers' caveat, a card's word never breaks, the deadline is a duration, the numbers explain
 * themselves in tooltips. Screenshot: $TMPDIR/colony-dashboard/finished-run.png.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { call, callsSoFar } from '../topology/peers-spec.js';
import { launchChromium } from './browser.js';

let store: Store;
let server: RunningServer;
let fake: FakeProvider;
let browser: Browser;
const runs = { peers: '', orchestrated: '', solo: '' };

// Each peer claims its module, writes the fix, lands it, answers. The solo agent only reads. Every
// answer reports cached input, as a provider with a prompt cache does.
const USAGE = { input: 100, cachedInput: 400, output: 10 };
const policy: ScriptedPolicy = (request) => ({ ...turn(request), usage: USAGE });

function turn(request: Parameters<ScriptedPolicy>[0]) {
  const peer = /Your peer ID is (peer-\d+)\./.exec(request.system)?.[1];
  const last = callsSoFar(request).at(-1);
  if (!peer) return last ? { text: 'nothing to change' } : call('ls');
  const area = peer === 'peer-1' ? 'alpha' : 'beta';
  if (!last) return call('claim', { scope: `src/${area}/`, summary: `fix ${area}` });
  if (last.name === 'claim')
    return call('write', { path: `src/${area}/value.txt`, content: `fixed ${area}\n` });
  if (last.name === 'write') return call('merge_request', { note: `fix ${area}` });
  return { text: `${peer}: fixed ${area}` };
}

async function cli(args: string[]): Promise<string> {
  const r = await colony(args, { env: NO_API_KEYS, timeoutMs: 180_000 });
  if (r.code !== 0) throw new Error(`colony ${args[0]} exited ${r.code}: ${r.stderr}`);
  return String(lastJsonLine(r.stdout).runId);
}

beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy });
  const started = await startServer({
    store,
    token: 'finished-run-token-0123456789abcdefghij',
    host: '127.0.0.1',
    port: 0,
  });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
  const repo = createUserRepo(
    { 'src/alpha/value.txt': 'broken\n', 'src/beta/value.txt': 'broken\n' },
    'colony-dash-finished-',
  ).dir;
  const verify = 'grep -qx "fixed alpha" src/alpha/value.txt && grep -qx "fixed beta" src/beta/value.txt';
  runs.peers = await cli([
    'run',
    '--repo',
    repo,
    '--goal',
    'fix alpha and beta',
    '--topology',
    'peers',
    '--agents',
    '2',
    '--verify',
    verify,
    '--merge-verify',
    'true',
    ...fakeModelFlags(fake.url),
    '--json',
  ]);
  runs.solo = await cli([
    'run',
    '--repo',
    repo,
    '--goal',
    'look around',
    ...fakeModelFlags(fake.url),
    '--json',
  ]);
  runs.orchestrated = await cli(['demo', 'orchestrated', '--dir', tmpdir(), '--json']);
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
  await store?.close();
});

/** Opens a page and records every event-stream request it makes. */
async function open(path: string): Promise<{ page: Page; streams: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const streams: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/stream')) streams.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}${path}`);
  return { page, streams, errors };
}

const cardValue = (page: Page, label: string) => page.textContent(`[data-card="${label}"] .card-value`);

describe('a finished run in the dashboard', () => {
  it('never shows a cost for an unpriced model, counts cached input, explains its numbers, is not live', async () => {
    const { page, streams, errors } = await open(`/runs/${runs.peers}`);
    await page.waitForSelector('[data-agent="peer-2"]');
    await page.waitForSelector('.run-head [data-status="succeeded"]');
    expect(await page.textContent('#app')).not.toContain('$0.00');
    for (const agent of ['peer-1', 'peer-2'])
      expect(await page.textContent(`[data-agent="${agent}"] [data-cost]`)).toBe('unpriced');
    expect(await cardValue(page, 'Cost')).toBe('unpriced');
    // The Tokens card counts cached input too (its tooltip gives the split).
    const view = (await (await fetch(`${server.url}/api/runs/${runs.peers}`)).json()) as {
      tokens: { input: number; cachedInput: number; cacheWrite: number; output: number };
    };
    const t = view.tokens;
    expect(t.cachedInput).toBeGreaterThan(0);
    expect(await page.getAttribute('[data-card="Tokens"]', 'title')).toBe(
      `${t.input} uncached input + ${t.cachedInput} cached input + ${t.cacheWrite} cache writes + ${t.output} output`,
    );
    expect(await page.getAttribute('[data-card="Steps (critical)"]', 'title')).toMatch(/CriticalSteps: /);
    expect(await page.getAttribute('[data-card="Cost"]', 'title')).toMatch(/unpriced/);
    // The deadline as durations (not "14 / 86k s").
    expect(await page.textContent('[data-limit="deadline"] .limit-val')).toMatch(/^[\d.]+s \/ 24h 00m$/);
    // Finished: no "● live", and no event stream was opened.
    expect(await page.textContent('#live')).toBe('');
    expect(streams).toEqual([]);
    const dir = join(tmpdir(), 'colony-dashboard');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'finished-run.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("shows a peer's landed merges as its commits, and opens no stream for it", async () => {
    const { page, streams, errors } = await open(`/runs/${runs.peers}/agents/peer-1`);
    await page.waitForSelector('#transcript [data-kind="model.response"]');
    const items = await page.$$eval('[data-commit]', (els) => els.map((e) => e.textContent ?? ''));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatch(/merge request #\d+, landed as [0-9a-f]{10}/);
    expect(await page.textContent('#app')).not.toContain('no commits yet');
    expect(await page.textContent('#live')).toBe('');
    expect(streams).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps words whole on the cards and starts the orchestrated timeline at the first step', async () => {
    const { page, errors } = await open(`/runs/${runs.orchestrated}`);
    await page.waitForSelector('[data-agent="lead"]');
    expect(await cardValue(page, 'Topology')).toBe('orchestrated');
    // "orchestrated" on one line: a single line box, and nothing overflowing the card.
    const layout = await page.$eval('[data-card="Topology"] .card-value', (el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      return { lines: lines.size, overflow: el.scrollWidth > el.clientWidth };
    });
    expect(layout).toEqual({ lines: 1, overflow: false });
    const view = (await (await fetch(`${server.url}/api/runs/${runs.orchestrated}`)).json()) as {
      timeline: { startMs: number; runStartMs: number; rows: Array<{ segs: number[] }> };
    };
    // The timeline begins with the first bar (offset 0), however long the workspace took to prepare.
    const firstOffset = Math.min(
      ...view.timeline.rows.flatMap((r) => (r.segs.length ? [r.segs[0] ?? 0] : [])),
    );
    expect(firstOffset).toBe(0);
    expect(view.timeline.startMs).toBeGreaterThan(view.timeline.runStartMs);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("gives a solo run's critical path without the peers' caveat", async () => {
    const { page } = await open(`/runs/${runs.solo}`);
    await page.waitForSelector('[data-agent="solo"]');
    await page.waitForSelector('.run-head [data-status]');
    const note = (await page.textContent('#app')) ?? '';
    expect(note).toMatch(
      /Critical path \(red\): \d+ steps .* with one agent every step is on the critical path/,
    );
    expect(note).not.toMatch(/peers' dependencies/);
    await page.close();
  }, 60_000);
});
