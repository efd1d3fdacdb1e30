/**
 * `colony run --notify URL` end to end (the built CLI, the fake model server, a real webhook receiver
 * of the test's own that checks each request's HMAC signature with its own code):
 * - a solo run with a token budget: the receiver sees budget_warning (80%), limit_hit and run_finished,
 *   each exactly once, signed; the log has a notify.sent for each and never the URL's token;
 * - a peers run with --approve-merges and a short --idle, on a "desktop" (DISPLAY set, a fake
 *   notify-send on PATH that records its argv): approval_needed, agent_stalled and run_finished reach
 *   both targets once; the merge request's agent-written note carries `$(touch …)` and an escape
 *   sequence, which reach notify-send as inert text: no file is made, no control character passed;
 * - a dead receiver (a closed port) and a slow one (answers after 10 s) do not slow the run: measured
 *   against the same run without --notify, and the slow run ends before its receiver's first answer;
 *   both end in notify.failed after three tries.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventKind, StoredEvent } from '../../src/core/events.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { COLONY_BIN, colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { call, callsSoFar } from '../topology/peers-spec.js';
import { closedPort, type Receiver, startReceiver, validSignature } from './receiver.js';

const SECRET = 'cli-notify-secret-0123456789abcdef';
const TOKEN = 'hooktoken0123456789abcdefXYZ';
/** No desktop unless a test makes one. */
const NO_DESKTOP = { DISPLAY: '', WAYLAND_DISPLAY: '' };
const ENV = { ...NO_API_KEYS, ...NO_DESKTOP, COLONY_NOTIFY_SECRET: SECRET };

let store: Store;
let configFile: string;
const closers: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  store = await openTestStore();
  const dir = mkdtempSync(join(tmpdir(), 'colony-notify-config-'));
  configFile = join(dir, 'colony.json');
  writeFileSync(configFile, JSON.stringify({ maxRetries: 0, notify: { timeoutMs: 2000 } }));
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await store?.close();
});

async function receiver(options: Parameters<typeof startReceiver>[0] = {}): Promise<Receiver> {
  const r = await startReceiver(options);
  closers.push(() => r.close());
  return r;
}

async function fakeModel(policy: ScriptedPolicy): Promise<FakeProvider> {
  const fake = await startFakeProvider({ policy });
  closers.push(() => fake.close());
  return fake;
}

const ofKind =
  <K extends EventKind>(kind: K) =>
  (events: StoredEvent[]) =>
    events.filter((e): e is StoredEvent<K> => e.kind === kind);

const kindsOf = (r: Receiver) => r.received.map((q) => (JSON.parse(q.body) as { kind: string }).kind).sort();

/** A solo agent that lists files until its token budget stops it: 10,000 tokens a call. */
const budgetPolicy: ScriptedPolicy = () => ({ ...call('ls'), usage: { input: 10_000, output: 0 } });
const BUDGET_TOKENS = 50_000;

async function budgetRun(fake: FakeProvider, notify: string[]) {
  const repo = createUserRepo({ 'README.md': '# notify\n' }, 'colony-notify-solo-');
  const r = await colony(
    [
      'run',
      '--repo',
      repo.dir,
      '--goal',
      'look around',
      ...fakeModelFlags(fake.url),
      '--budget-tokens',
      String(BUDGET_TOKENS),
      '--max-steps',
      '40',
      '--config',
      configFile,
      '--json',
      ...notify,
    ],
    { env: ENV },
  );
  if (!r.stdout.trim()) throw new Error(`no output (exit ${r.code}): ${r.stderr}`);
  const summary = lastJsonLine(r.stdout) as { runId: string; status: string; wallClockMs: number };
  expect(summary.status, r.stderr).toBe('budget_exhausted');
  const events = await store.log.read(summary.runId);
  return { summary, events, stderr: r.stderr };
}

describe('colony run --notify', () => {
  it('sends budget_warning, limit_hit and run_finished once each, signed, and logs them without the token', async () => {
    const hook = await receiver();
    const fake = await fakeModel(budgetPolicy);
    const { summary, events } = await budgetRun(fake, ['--notify', `${hook.url}/hook/${TOKEN}`]);

    expect(kindsOf(hook)).toEqual(['budget_warning', 'limit_hit', 'run_finished']);
    for (const request of hook.received) {
      expect(validSignature(request, SECRET), request.body).toBe(true);
      expect(request.path).toBe(`/hook/${TOKEN}`);
    }
    const bodies = hook.received.map((q) => JSON.parse(q.body) as Record<string, unknown>);
    const warning = bodies.find((b) => b.kind === 'budget_warning');
    expect(warning).toMatchObject({
      runId: summary.runId,
      details: { budget: 'tokens', limit: BUDGET_TOKENS },
    });
    const used = Number((warning?.details as { used?: number } | undefined)?.used);
    expect(used).toBeGreaterThanOrEqual(0.8 * BUDGET_TOKENS);
    expect(used).toBeLessThan(BUDGET_TOKENS);
    expect(bodies.find((b) => b.kind === 'limit_hit')).toMatchObject({ details: { limit: 'budget_tokens' } });
    expect(bodies.find((b) => b.kind === 'run_finished')).toMatchObject({
      details: { status: 'budget_exhausted' },
    });

    const target = `webhook:${new URL(hook.url).host}`;
    const sent = ofKind('notify.sent')(events);
    expect(sent.map((e) => e.data.kind).sort()).toEqual(['budget_warning', 'limit_hit', 'run_finished']);
    expect(sent.every((e) => e.data.target === target && e.data.attempt === 1)).toBe(true);
    expect(ofKind('notify.failed')(events)).toEqual([]);
    // Each notification names the event it is about: the warning the response that passed 80%.
    const warned = events.find((e) => e.seq === sent.find((s) => s.data.kind === 'budget_warning')?.data.seq);
    expect(warned?.kind).toBe('model.response');
    const logText = JSON.stringify(events);
    expect(logText).not.toContain(TOKEN);
    expect(logText).not.toContain(SECRET);
  }, 120_000);

  it('notifies a waiting approval and a stalled agent on the webhook and the desktop, with inert agent text', async () => {
    const hook = await receiver();
    const marker = join(mkdtempSync(join(tmpdir(), 'colony-notify-marker-')), 'pwned');
    const note = `fix alpha $(touch ${marker}) \`touch ${marker}\` \u001b[31mred\u001b[0m\r\nnext`;
    let releasePeer2 = () => {};
    const peer2Held = new Promise<void>((resolve) => {
      releasePeer2 = resolve;
    });
    closers.push(() => releasePeer2());
    const policy: ScriptedPolicy = async (req) => {
      const id = /Your peer ID is (peer-\d+)\.$/.exec(req.system)?.[1];
      if (id === 'peer-2') {
        // peer-2 hangs in its first model call until it has been declared stalled.
        await peer2Held;
        return { text: 'peer-2: nothing left for me' };
      }
      const last = callsSoFar(req).at(-1);
      if (!last) return call('claim', { scope: 'src/alpha/', summary: 'fix alpha' });
      if (last.name === 'claim')
        return call('write', { path: 'src/alpha/value.txt', content: 'fixed alpha\n' });
      if (last.name === 'write') return call('merge_request', { note });
      return { text: 'peer-1: fixed alpha' };
    };
    const fake = await fakeModel(policy);

    // The desktop: DISPLAY set and a notify-send that records its argv (no shell in between).
    const bin = mkdtempSync(join(tmpdir(), 'colony-notify-bin-'));
    const argvLog = join(bin, 'argv.log');
    writeFileSync(
      join(bin, 'notify-send'),
      `#!/bin/sh\nprintf 'CALL %s\\n' "$#" >> '${argvLog}'\nfor a in "$@"; do printf 'ARG %s\\n' "$a" >> '${argvLog}'; done\n`,
    );
    chmodSync(join(bin, 'notify-send'), 0o755);

    const repo = createUserRepo({ 'src/alpha/value.txt': 'broken\n' }, 'colony-notify-peers-');
    const run = spawnWithEnv(
      [
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
        '--config',
        configFile,
        '--notify',
        `${hook.url}/hook/${TOKEN}`,
        '--json',
      ],
      { ...ENV, DISPLAY: ':99', PATH: `${bin}:${process.env.PATH ?? ''}` },
    );
    closers.push(() => {
      run.child.kill('SIGKILL');
    });
    const runId = await until(() => /"runId":"([^"]+)"/.exec(run.output())?.[1], 'the run id');
    // A merge waits for a person and peer-2 is stalled: both were notified while the run went on.
    await until(
      () => kindsOf(hook).includes('approval_needed') && kindsOf(hook).includes('agent_stalled'),
      'approval_needed and agent_stalled at the webhook',
    );
    releasePeer2();
    const [waiting] = await store.log.read(runId, { kinds: ['merge.awaiting_approval'] });
    const approved = await colony(['approve', runId, String(waiting?.data.mr)], { env: ENV });
    expect(approved.code, approved.stderr).toBe(0);
    expect(await run.closed).toBe(0);
    expect(lastJsonLine(run.output()).status).toBe('succeeded');

    expect(kindsOf(hook)).toEqual(['agent_stalled', 'approval_needed', 'run_finished']);
    expect(hook.received.every((q) => validSignature(q, SECRET))).toBe(true);
    const approval = hook.received
      .map((q) => JSON.parse(q.body) as { kind: string; agent: string; details: Record<string, unknown> })
      .find((b) => b.kind === 'approval_needed');
    expect(approval).toMatchObject({
      agent: 'peer-1',
      details: { mr: waiting?.data.mr, note, approve: `colony approve ${runId} ${waiting?.data.mr}` },
    });

    // notify-send: three calls, an argument array after `--`, the agent's text inert.
    const calls = readFileSync(argvLog, 'utf8')
      .split('CALL ')
      .slice(1)
      .map((block) =>
        block
          .trim()
          .split('\n')
          .slice(1)
          .map((line) => line.replace(/^ARG /, '')),
      );
    expect(calls).toHaveLength(3);
    for (const argv of calls) {
      expect(argv).toHaveLength(4);
      expect(argv.slice(0, 2)).toEqual(['--app-name=Colony', '--']);
    }
    const approvalText = calls.find((argv) => argv[2]?.includes('a merge waits for you'))?.[3] ?? '';
    expect(approvalText).toContain(`$(touch ${marker})`);
    expect(approvalText).toContain('[31mred');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may pass
    expect(approvalText).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(existsSync(marker)).toBe(false);

    const events = await store.log.read(runId);
    const sent = ofKind('notify.sent')(events);
    for (const target of [`webhook:${new URL(hook.url).host}`, 'desktop'])
      expect(
        sent
          .filter((e) => e.data.target === target)
          .map((e) => e.data.kind)
          .sort(),
      ).toEqual(['agent_stalled', 'approval_needed', 'run_finished']);
    expect(ofKind('agent.stalled')(events).map((e) => e.agent)).toEqual(['peer-2']);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
  }, 180_000);

  it('a dead or slow receiver does not slow the run; both end in notify.failed after three tries', async () => {
    const fake = await fakeModel(budgetPolicy);
    const baseline = await budgetRun(fake, []);
    expect(ofKind('notify.sent')(baseline.events)).toEqual([]);

    const dead = await budgetRun(fake, ['--notify', `http://127.0.0.1:${await closedPort()}/hook/${TOKEN}`]);
    const slowHook = await receiver({ delayMs: 10_000 });
    const slow = await budgetRun(fake, ['--notify', `${slowHook.url}/hook/${TOKEN}`]);

    // A notifier in the run's way would add at least the retry pauses (0.5 s + 2 s) of each of the
    // two notifications sent mid-run (dead), or their time-outs (slow): 5 s or more. It adds nothing.
    expect(dead.summary.wallClockMs).toBeLessThan(baseline.summary.wallClockMs + 2_500);
    expect(slow.summary.wallClockMs).toBeLessThan(baseline.summary.wallClockMs + 2_500);
    // The slow run was over before its receiver answered even the first request.
    const firstRequest = Math.min(...slowHook.received.map((q) => q.at));
    const [finished] = ofKind('run.finished')(slow.events);
    expect(Date.parse(finished?.ts ?? '')).toBeLessThan(firstRequest + 10_000);

    for (const [run, error] of [
      [dead, 'connection refused'],
      [slow, 'no answer within 2000 ms'],
    ] as const) {
      const failed = ofKind('notify.failed')(run.events);
      expect(failed.map((e) => e.data.kind).sort()).toEqual(['budget_warning', 'limit_hit', 'run_finished']);
      expect(failed.every((e) => e.data.attempts === 3 && e.data.error === error)).toBe(true);
      expect(ofKind('notify.sent')(run.events)).toEqual([]);
      expect(JSON.stringify(run.events)).not.toContain(TOKEN);
    }
    // Three tries of each of the three notifications reached the slow receiver.
    expect(slowHook.received).toHaveLength(9);
  }, 240_000);
});

function spawnWithEnv(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string; closed: Promise<number | null> } {
  const child = spawn(process.execPath, [COLONY_BIN, ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.resume();
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, output: () => stdout, closed };
}

async function until<T>(check: () => T | null | undefined | false, what: string): Promise<T> {
  const end = Date.now() + 90_000;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
