/**
 * A merge request's diff in a real browser, and deciding on it there: a peers run (the built CLI, one
 * scripted peer on the fake provider) with `--approve-merges`. The peer's merge request is hostile: a
 * file whose content is markup that would run script if it were ever parsed as HTML, and a
 * `.gitattributes` naming a diff driver whose textconv and external command (in the hub's config and
 * info/attributes, as if an agent had got to write them) would create marker files. The page shows
 * the change as literal text with the merge check's output, no script runs, no command runs (the
 * markers are never created — while the same diff without Colony's options does create one, so the
 * trap is live), and Approve in the diff view lands the request. A second peer's request is rejected
 * from its diff view with a reason (none: refused in the page). Screenshot:
 * $TMPDIR/colony-dashboard/merge-diff.png.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { git } from '../../src/workspace/git/git.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { fakeModelFlags, spawnColony } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { request } from '../server/http-client.js';
import { call, callsSoFar } from '../topology/peers-spec.js';
import { launchChromium } from './browser.js';
import { until as waitUntil } from './until.js';

const TOKEN = 'diff-token-0123456789abcdefghijklmnopqrstuvwxyz';
const EVIL =
  `<img src=x onerror="window.__pwned='img';document.title='pwned'">` +
  `<script>window.__pwned='script';document.title='pwned'</script>`;
const REASON = 'a greeting is spelt hello, not helo';
const traps = mkdtempSync(join(tmpdir(), 'colony-diff-trap-'));
const MARKERS = ['textconv', 'command', 'external'].map((name) => join(traps, `ran-${name}`));
let store: Store;
let server: RunningServer;
let fake: FakeProvider;
let browser: Browser;
let child: ChildProcess | null = null;

beforeAll(async () => {
  store = await openTestStore();
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 100 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
  fake = await startFakeProvider({
    policy: async (req) => {
      const writes = callsSoFar(req).filter((c) => c.name === 'write').length;
      const last = callsSoFar(req).at(-1);
      // peer-2: a plain change, which the person rejects from its diff view.
      if (/Your peer ID is peer-2\./.test(req.system)) {
        if (!last) return call('write', { path: 'web/typo.html', content: 'helo\n' });
        if (last.name === 'write') return call('merge_request', { note: 'add the greeting' });
        return { text: 'peer-2: submitted' };
      }
      if (!last) return call('write', { path: 'web/evil.html', content: `${EVIL}\n` });
      if (last.name === 'write' && writes === 1)
        return call('write', { path: '.gitattributes', content: '* diff=evil\n' });
      if (last.name === 'write') return call('merge_request', { note: 'add the page' });
      return { text: 'peer-1: submitted' };
    },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await browser?.close();
  await fake?.close();
  await server?.close();
  await store?.close();
  rmSync(traps, { recursive: true, force: true });
});

/** This file's waits: at most 120_000 ms each unless a call says otherwise. */
const until = <T>(check: () => T | Promise<T>, what: string, timeoutMs = 120_000) =>
  waitUntil(check, what, timeoutMs);

/** The diff driver `evil` for every path, in the hub's own config and attributes. */
async function armTrap(hub: string): Promise<void> {
  const [textconv, command, external] = MARKERS;
  const set = async (key: string, value: string) => {
    const r = await git(['config', key, value], { cwd: hub });
    if (!r.ok) throw new Error(r.stderr);
  };
  await set('diff.evil.textconv', `touch ${textconv}; cat`);
  await set('diff.evil.command', `touch ${command}; true`);
  await set('diff.external', `sh -c 'touch ${external}'`);
  mkdirSync(join(hub, 'info'), { recursive: true });
  writeFileSync(join(hub, 'info', 'attributes'), '* diff=evil\n');
}

describe('a merge request diff in Chromium', () => {
  it('shows a hostile change as text with its verify output, runs nothing, and Approve lands it', async () => {
    const repo = createUserRepo({ 'README.md': '# diff\n' }, 'colony-diff-').dir;
    const run = spawnColony([
      'run',
      '--repo',
      repo,
      '--goal',
      'Add the page.',
      '--topology',
      'peers',
      '--agents',
      '2',
      '--verify',
      'true',
      '--merge-verify',
      'echo merge-check-ok',
      '--approve-merges',
      ...fakeModelFlags(fake.url),
      '--json',
    ]);
    child = run.child;
    const runId = await until(() => /"runId":"([^"]+)"/.exec(run.output())?.[1], 'the run id');
    const log = (): Promise<StoredEvent[]> => store.log.read(runId);
    // Both requests pass the merge check and wait for a person.
    const parkedBoth = await until(async () => {
      const parkedNow = (await log()).filter((e) => e.kind === 'merge.awaiting_approval');
      return parkedNow.length === 2 ? parkedNow : null;
    }, 'both merge requests parked for approval');
    const parked = parkedBoth.find((e) => e.agent === 'peer-1');
    const typo = parkedBoth.find((e) => e.agent === 'peer-2');
    if (!parked || !typo) throw new Error('a parked request of each peer');
    const mr = Number((parked.data as { mr: number }).mr);
    const typoMr = Number((typo.data as { mr: number }).mr);
    const ready = (await log()).find((e) => e.kind === 'workspace.ready');
    const hub = String((ready?.data as { hub?: string } | undefined)?.hub);
    await armTrap(hub);
    // The trap is live: git's own diff of that candidate runs the driver's external command, and
    // without external diffs its textconv, unless told not to (Colony's options).
    const candidate = String((parked.data as { commit: string }).commit);
    const [textconvMarker, commandMarker] = MARKERS as [string, string, string];
    const plain = await git(['diff', `${candidate}^`, candidate], { cwd: hub });
    expect(existsSync(commandMarker), plain.stderr).toBe(true);
    const noExt = await git(['diff', '--no-ext-diff', `${candidate}^`, candidate], { cwd: hub });
    expect(existsSync(textconvMarker), noExt.stderr).toBe(true);
    for (const m of MARKERS) rmSync(m, { force: true });

    const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => void d.dismiss());
    await page.goto(`${server.url}/runs/${runId}#token=${TOKEN}`);
    await page.click(`[data-diff="${mr}"]`, { timeout: 60_000 });
    await page.waitForSelector('#mr-patch', { timeout: 30_000 });

    // The change, literally: the markup is text in the patch, no element of it exists.
    const patch = (await page.textContent('#mr-patch')) ?? '';
    expect(patch).toContain(`+${EVIL}`);
    expect(patch).toContain('+* diff=evil');
    expect(await page.locator('#mr-diff img, #mr-diff script').count()).toBe(0);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await page.title()).not.toBe('pwned');
    expect(await page.textContent('#mr-files')).toContain('web/evil.html');
    expect(await page.textContent('#mr-status')).toBe('awaiting approval');
    // Its merge check's output (the verify summary it passed with).
    expect(await page.textContent('#mr-verify-summary')).toMatch(
      /`echo merge-check-ok` passed in .*merge-check-ok/,
    );
    // No command of the repository's diff driver ran, nor git's external diff.
    for (const m of MARKERS) expect(existsSync(m), m).toBe(false);
    // The API answers the same, capped text (a read: no token needed on loopback).
    const api = await request(server.url, 'GET', `/api/runs/${runId}/merges/${mr}/diff`);
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ mr, status: 'awaiting_approval', truncated: false, agent: 'peer-1' });
    for (const m of MARKERS) expect(existsSync(m), m).toBe(false);

    const dir = join(tmpdir(), 'colony-dashboard');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'merge-diff.png'), fullPage: true });

    // Reject peer-2's request from its diff view, with the reason its author reads.
    await page.click(`[data-diff="${typoMr}"]`);
    await page.waitForSelector(`#mr-diff:has-text("Merge request #${typoMr}")`);
    expect(await page.textContent('#mr-patch')).toContain('+helo');
    await page.click('#mr-reject');
    // No reason: refused in the page, nothing logged.
    await page.waitForSelector('#toast:has-text("say why")');
    await page.fill('#mr-reason', REASON);
    await page.click('#mr-reject');
    const declined = await until(
      async () =>
        (await log()).find((e) => e.kind === 'merge.declined' && (e.data as { mr: number }).mr === typoMr),
      'the rejection in the log',
    );
    expect(declined).toMatchObject({ agent: null, data: { by: 'user', reason: REASON } });
    await page.waitForSelector('#mr-status:has-text("rejected")', { timeout: 30_000 });
    expect(await page.textContent('#mr-verify-output')).toContain(REASON);

    // Approve peer-1's from its diff view: the run lands it and ends.
    await page.click(`[data-diff="${mr}"]`);
    await page.waitForSelector(`#mr-diff:has-text("Merge request #${mr}")`);
    await page.click('#mr-approve');
    await until(
      async () =>
        (await log()).find((e) => e.kind === 'merge.landed' && (e.data as { mr: number }).mr === mr),
      'the merge request landed',
    );
    const approved = (await log()).find((e) => e.kind === 'merge.approved');
    expect(approved).toMatchObject({ agent: null, data: { mr, by: 'user' } });
    // The diff view follows: now the landed commit, with the summary it landed with.
    await page
      .waitForSelector('#mr-status:has-text("landed")', { timeout: 30_000 })
      .catch(async (e: Error) => {
        throw new Error(
          `${e.message}\nthe diff view says: ${await page.textContent('#mr-diff')}\n${errors.join('\n')}`,
        );
      });
    expect(await page.textContent('#mr-patch')).toContain(`+${EVIL}`);
    expect(await run.closed).toBe(0);
    for (const m of MARKERS) expect(existsSync(m), m).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);
});
