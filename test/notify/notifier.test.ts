/**
 * The notifier against real HTTP receivers and an in-memory log: each occurrence reaches each target
 * once, signed; what was logged as notified is not sent again by a later notifier (a resume); a dead,
 * failing, slow or redirecting receiver ends in `notify.failed` after three tries; the log never
 * holds the webhook's path, query or secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EventInput, StoredEvent } from '../../src/core/events.js';
import { startNotifier } from '../../src/notify/notifier.js';
import { resolveNotifySettings } from '../../src/notify/settings.js';
import { type MemoryLog, memoryLog } from './memory-log.js';
import { closedPort, type Receiver, startReceiver, validSignature } from './receiver.js';

const RUN = 'r-notify-unit';
const SECRET = 'notify-unit-secret-0123456789';
const TOKEN = 'path-token-abcdef0123456789';
const receivers: Receiver[] = [];

afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(options: Parameters<typeof startReceiver>[0] = {}): Promise<Receiver> {
  const r = await startReceiver(options);
  receivers.push(r);
  return r;
}

function settings(url: string, extra: { timeoutMs?: number } = {}) {
  const r = resolveNotifySettings(url, { desktop: false, ...extra }, { COLONY_NOTIFY_SECRET: SECRET });
  if (!r.ok || !r.value) throw new Error('settings');
  return r.value;
}

function append(log: MemoryLog, event: Omit<EventInput, 'runId'>): Promise<StoredEvent> {
  return log.append({ ...event, runId: RUN } as EventInput);
}

const notifyEvents = (log: MemoryLog) =>
  log.events.filter((e) => e.kind === 'notify.sent' || e.kind === 'notify.failed');

describe('the notifier', () => {
  it('sends each occurrence once, signed, logs notify.sent with the host only, and does not repeat on a resume', async () => {
    const hook = await receiver();
    const log = memoryLog();
    const url = `${hook.url}/hooks/${TOKEN}?key=${TOKEN}`;
    const watch = { budgetTokens: 100, approvals: false };
    const notifier = startNotifier({ log, runId: RUN, watch, settings: settings(url), env: {}, pollMs: 20 });
    expect(notifier.targets).toEqual([`webhook:${new URL(hook.url).host}`]);
    await append(log, { agent: 'solo', kind: 'limit.hit', data: { limit: 'max_steps', value: 3, used: 3 } });
    const end = await append(log, {
      agent: null,
      kind: 'run.finished',
      data: { status: 'failed', reason: 'the agent hit max_steps', resultBranch: null },
    });
    await notifier.finish();

    expect(hook.received.map((r) => JSON.parse(r.body).kind).sort()).toEqual(['limit_hit', 'run_finished']);
    for (const request of hook.received) {
      expect(request.path).toBe(`/hooks/${TOKEN}?key=${TOKEN}`);
      expect(validSignature(request, SECRET)).toBe(true);
      expect(validSignature(request, `${SECRET}x`)).toBe(false);
      expect(request.headers['content-type']).toBe('application/json');
    }
    const finished = JSON.parse(hook.received.find((r) => r.body.includes('run_finished'))?.body ?? '{}');
    expect(finished).toEqual({
      version: 1,
      kind: 'run_finished',
      runId: RUN,
      occurrence: 'run_finished',
      seq: end.seq,
      at: end.ts,
      agent: null,
      title: `Colony ${RUN}: failed`,
      text: 'the agent hit max_steps',
      details: { status: 'failed', reason: 'the agent hit max_steps', resultBranch: null },
    });
    const logged = notifyEvents(log);
    expect(logged.map((e) => [e.kind, e.data])).toEqual(
      expect.arrayContaining([
        [
          'notify.sent',
          {
            kind: 'run_finished',
            target: `webhook:${new URL(hook.url).host}`,
            attempt: 1,
            occurrence: 'run_finished',
            seq: end.seq,
          },
        ],
      ]),
    );
    expect(logged).toHaveLength(2);
    expect(JSON.stringify(log.events)).not.toContain(TOKEN);
    expect(JSON.stringify(log.events)).not.toContain(SECRET);

    // A resumed run's notifier reads the log from the start: only what was not notified goes out.
    await append(log, { agent: 'solo', kind: 'agent.stalled', data: { idleMs: 1000 } });
    const again = startNotifier({ log, runId: RUN, watch, settings: settings(url), env: {}, pollMs: 20 });
    await again.finish();
    expect(hook.received.map((r) => JSON.parse(r.body).kind).sort()).toEqual([
      'agent_stalled',
      'limit_hit',
      'run_finished',
    ]);
    expect(notifyEvents(log)).toHaveLength(3);
  });

  it('only sends the kinds asked for', async () => {
    const hook = await receiver();
    const log = memoryLog();
    const only = resolveNotifySettings(hook.url, { desktop: false, events: ['run_finished'] }, {});
    if (!only.ok || !only.value) throw new Error('settings');
    const notifier = startNotifier({
      log,
      runId: RUN,
      watch: { approvals: false },
      settings: only.value,
      env: {},
      pollMs: 20,
    });
    await append(log, { agent: 'solo', kind: 'agent.stalled', data: { idleMs: 1000 } });
    await append(log, {
      agent: null,
      kind: 'run.finished',
      data: { status: 'succeeded', reason: 'ok', resultBranch: 'colony/x' },
    });
    await notifier.finish();
    expect(hook.received.map((r) => JSON.parse(r.body).kind)).toEqual(['run_finished']);
    // No secret: no signature header.
    expect(hook.received[0]?.headers['x-colony-signature']).toBeUndefined();
  });

  it('retries a failing receiver and logs the try that worked', async () => {
    const hook = await receiver({ statuses: [500, 503] });
    const log = memoryLog();
    const notifier = startNotifier({
      log,
      runId: RUN,
      watch: { approvals: false },
      settings: settings(hook.url),
      env: {},
      pollMs: 20,
    });
    await append(log, {
      agent: null,
      kind: 'run.finished',
      data: { status: 'succeeded', reason: 'ok', resultBranch: null },
    });
    await notifier.finish();
    expect(hook.received).toHaveLength(3);
    expect(notifyEvents(log).map((e) => [e.kind, (e.data as { attempt?: number }).attempt])).toEqual([
      ['notify.sent', 3],
    ]);
    // Each try is signed afresh.
    expect(hook.received.every((r) => validSignature(r, SECRET))).toBe(true);
  }, 10_000);

  it('gives up after three tries on a dead, a slow and a redirecting receiver, saying why without the URL', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}/hook/${TOKEN}`;
    const slow = await receiver({ delayMs: 10_000 });
    const elsewhere = await receiver();
    const redirecting = await receiver({ status: 302, location: `${elsewhere.url}/stolen` });
    const cases = [
      [dead, 'connection refused'],
      [`${slow.url}/${TOKEN}`, 'no answer within 300 ms'],
      [`${redirecting.url}/${TOKEN}`, 'HTTP 302'],
    ] as const;
    await Promise.all(
      cases.map(async ([url, error]) => {
        const log = memoryLog();
        const notifier = startNotifier({
          log,
          runId: RUN,
          watch: { approvals: false },
          settings: settings(url, { timeoutMs: 300 }),
          env: {},
          pollMs: 20,
        });
        await append(log, {
          agent: null,
          kind: 'run.finished',
          data: { status: 'succeeded', reason: 'ok', resultBranch: null },
        });
        await notifier.finish();
        expect(notifyEvents(log).map((e) => [e.kind, e.data])).toEqual([
          [
            'notify.failed',
            {
              kind: 'run_finished',
              target: `webhook:${new URL(url).host}`,
              error,
              attempts: 3,
              occurrence: 'run_finished',
              seq: 1,
            },
          ],
        ]);
        expect(JSON.stringify(log.events)).not.toContain(TOKEN);
      }),
    );
    expect(slow.received).toHaveLength(3);
    expect(redirecting.received).toHaveLength(3);
    expect(elsewhere.received).toHaveLength(0);
  }, 20_000);
});
