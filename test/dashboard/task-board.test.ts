/**
 * The task board in a real browser: a peers run (the built CLI, one peer on the fake provider) whose
 * scripted peer asks the board for work with `claim_next {wait: true}` until it gets some. A person
 * adds a task in the page (with the server token); the peer claims it — the page shows it held by
 * peer-1, the run's log has the person's task.added (no agent, by user) and peer-1's task.claimed —
 * then releases it done, and the page shows it done. An edit of the held task is refused in the page
 * with the reason. Screenshot: $TMPDIR/colony-dashboard/board.png.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { ModelRequest } from '../../src/model/types.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { fakeModelFlags, spawnColony } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { call, callsSoFar } from '../topology/peers-spec.js';
import { launchChromium } from './browser.js';
import { until as waitUntil } from './until.js';

const TOKEN = 'board-token-0123456789abcdefghijklmnopqrstuvwxyz';
const TITLE = 'Write the release notes';
let store: Store;
let server: RunningServer;
let fake: FakeProvider;
let browser: Browser;
let child: ChildProcess | null = null;

function lastToolResult(req: ModelRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m?.role === 'tool') return m.content;
  }
  return '';
}

beforeAll(async () => {
  store = await openTestStore();
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 100 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
  // The peer asks the board for work until it gets a task, holds it (its next model call waits for
  // the test), then releases it done and answers.
  fake = await startFakeProvider({
    policy: async (req) => {
      const last = callsSoFar(req).at(-1);
      if (!last) return call('claim_next', { wait: true });
      if (last.name === 'claim_next') {
        const got = /^Task #(\d+): .*\nScope: (\S+)\./m.exec(lastToolResult(req));
        if (!got) return call('claim_next', { wait: true });
        await releaseTask.promise;
        return call('release', { scope: got[2], outcome: `done: task ${got[1]} written` });
      }
      if (last.name === 'release') return { text: 'peer-1: the board is done' };
      return call('claim_next', { wait: true });
    },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  releaseTask.resolve();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await browser?.close();
  await fake?.close();
  await server?.close();
  await store?.close();
});

const releaseTask = deferred();
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** This file's waits: at most 90_000 ms each unless a call says otherwise. */
const until = <T>(check: () => T | Promise<T>, what: string, timeoutMs = 90_000) =>
  waitUntil(check, what, timeoutMs);

describe('the task board in Chromium', () => {
  it('adds a task in the page that a scripted peer then claims (page and log)', async () => {
    const repo = createUserRepo({ 'README.md': '# board\n' }, 'colony-board-').dir;
    const run = spawnColony([
      'run',
      '--repo',
      repo,
      '--goal',
      'Do what the task board says.',
      '--topology',
      'peers',
      '--agents',
      '1',
      '--verify',
      'true',
      ...fakeModelFlags(fake.url),
      '--json',
    ]);
    child = run.child;
    const runId = await until(() => /"runId":"([^"]+)"/.exec(run.output())?.[1], 'the run id');
    const log = (): Promise<StoredEvent[]> => store.log.read(runId);

    const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/runs/${runId}#token=${TOKEN}`);
    await page.waitForSelector('#task-form');
    // The peer is already asking the board (an empty one) for work.
    await until(
      async () => (await log()).some((e) => e.kind === 'tool.started' && e.data.name === 'claim_next'),
      "peer-1's claim_next",
    );
    await page.waitForSelector('#board-summary:has-text("The board is empty")');

    await page.fill('#task-title', TITLE);
    await page.fill('#task-scope', 'docs/');
    await page.fill('#task-detail', 'one line per change');
    await page.click('#task-add');

    // peer-1 takes it: the page shows it held by peer-1…
    await page.waitForSelector('tr[data-task="1"][data-state="held"][data-agent="peer-1"]', {
      timeout: 90_000,
    });
    expect(await page.textContent('tr[data-task="1"]')).toContain(TITLE);
    // …and the log has the person's task and peer-1's claim of it.
    const events = await log();
    const added = events.find((e) => e.kind === 'task.added');
    expect(added).toMatchObject({ agent: null, data: { id: 1, title: TITLE, scope: 'docs/', by: 'user' } });
    const claimed = events.find((e) => e.kind === 'task.claimed');
    expect(claimed).toMatchObject({ agent: 'peer-1', data: { id: 1, scope: 'docs/' } });
    // What the peer's claim_next answered: the task as the person wrote it.
    const answer = fake
      .requests()
      .map((r) => (r.request ? lastToolResult(r.request) : ''))
      .find((text) => text.startsWith('Task #1:'));
    expect(answer).toContain(TITLE);
    expect(answer).toContain('one line per change');

    // Editing a held task is refused, with the reason (the Edit button is disabled for it; the API
    // says why when called anyway).
    expect(await page.isDisabled('tr[data-task="1"] [data-edit="1"]')).toBe(true);
    const refused = await page.evaluate(
      async ([id, token]) => {
        const r = await fetch(`/api/runs/${id}/tasks/1`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'something else' }),
        });
        return { status: r.status, body: (await r.json()) as { error: string } };
      },
      [runId, TOKEN] as const,
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/held by peer-1/);

    const dir = join(tmpdir(), 'colony-dashboard');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'board.png'), fullPage: true });

    // The peer releases it done: the page shows it done by peer-1, and the run ends.
    releaseTask.resolve();
    await page.waitForSelector('tr[data-task="1"][data-state="done"][data-agent="peer-1"]', {
      timeout: 90_000,
    });
    expect(await run.closed).toBe(0);
    expect((await log()).some((e) => e.kind === 'task.done' && e.data.id === 1)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);
});
