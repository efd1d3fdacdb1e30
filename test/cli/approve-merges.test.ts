/**
 * `colony run --approve-merges` end to end: the built CLI runs two peers against the fake provider;
 * every verified merge request is parked until a person decides. With both first requests parked the
 * run's process is killed and `colony resume` takes over (the flag and the parked requests survive).
 * peer-1's request stays parked (peer-1 has long finished, the run keeps going) until `colony approve`
 * runs, then lands; peer-2's typo is rejected through the dashboard's HTTP API and the reason reaches
 * peer-2, whose fix the dashboard API approves. The test moves on only on events in the log (or the
 * held model call), never on time.
 * `colony reject` is checked on its own against a recorded run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventKind, StoredEvent } from '../../src/core/events.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { loadRunSpec } from '../../src/topology/execute-run.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, spawnColony } from '../helpers/cli.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { request } from '../server/http-client.js';
import { call, callsSoFar } from '../topology/peers-spec.js';

const TOKEN = 'approve-merges-token-0123456789abcdefghijklmn';
const REASON = 'typo: src/beta/value.txt must say fixed beta, not fixd beta';
let store: Store;
let server: RunningServer;
let fake: FakeProvider;

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** peer-2's model call after its first merge_request is held until the test has rejected it. */
const rejectionSent = deferred();
let heldCalls = 0;
let sawReason = false;

const policy: ScriptedPolicy = async (req) => {
  const id = /Your peer ID is (peer-\d+)\.$/.exec(req.system)?.[1];
  const area = id === 'peer-1' ? 'alpha' : 'beta';
  const calls = callsSoFar(req);
  const last = calls.at(-1);
  if (!last) return call('claim', { scope: `src/${area}/`, summary: `fix ${area}` });
  switch (last.name) {
    case 'claim':
      // peer-2 first writes a typo, which the person rejects.
      return call('write', {
        path: `src/${area}/value.txt`,
        content: `${area === 'beta' ? 'fixd' : 'fixed'} ${area}\n`,
      });
    case 'write':
      return call('merge_request', { note: `fix ${area}` });
    case 'merge_request':
      if (id === 'peer-2' && calls.filter((c) => c.name === 'merge_request').length === 1) {
        heldCalls++;
        await rejectionSent.promise;
        return call('message_read');
      }
      return { text: `${id}: fixed ${area}` };
    case 'message_read':
      sawReason = JSON.stringify(req.messages).includes(REASON);
      if (sawReason) return call('edit', { path: 'src/beta/value.txt', old: 'fixd', new: 'fixed' });
      return { text: 'peer-2: no decision heard' };
    case 'edit':
      return call('merge_request', { note: 'fix beta (typo fixed)' });
    default:
      return { text: `${id}: done` };
  }
};

beforeAll(async () => {
  store = await openTestStore();
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 100 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
  fake = await startFakeProvider({ policy });
});

afterAll(async () => {
  rejectionSent.resolve();
  await fake?.close();
  await server?.close();
  await store?.close();
});

/** Waits for a state of the run's log (the run is another process: the log is what it says). */
async function untilLog<T>(
  runId: string,
  check: (events: StoredEvent[]) => T | null | undefined | false,
  what: string,
): Promise<T> {
  const end = Date.now() + 120_000;
  for (;;) {
    const value = check(await store.log.read(runId));
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ofKind =
  <K extends EventKind>(kind: K) =>
  (events: StoredEvent[]) =>
    events.filter((e): e is StoredEvent<K> => e.kind === kind);

describe('colony run --approve-merges', () => {
  it('parks every verified merge until a person approves it (CLI or dashboard API); a rejection reaches the agent with the reason', async () => {
    const repo = createUserRepo(
      { 'src/alpha/value.txt': 'broken\n', 'src/beta/value.txt': 'broken\n' },
      'colony-approve-merges-',
    );
    const run = spawnColony([
      'run',
      '--repo',
      repo.dir,
      '--goal',
      'Fix src/alpha and src/beta: each value.txt must read "fixed <module>".',
      '--topology',
      'peers',
      '--agents',
      '2',
      '--verify',
      'grep -qx "fixed alpha" src/alpha/value.txt && grep -qx "fixed beta" src/beta/value.txt',
      '--merge-verify',
      'true',
      '--approve-merges',
      ...fakeModelFlags(fake.url),
      '--json',
    ]);
    const runId = await untilLogOutput(() => /"runId":"([^"]+)"/.exec(run.output())?.[1]);

    // Both first requests pass the merge check and are parked; both peers were told so, peer-1 has
    // finished and peer-2's next model call is held.
    const parked = await untilLog(
      runId,
      (events) => {
        const waiting = ofKind('merge.awaiting_approval')(events);
        const answered = ofKind('tool.finished')(events).filter((e) => e.data.name === 'merge_request');
        const done = ofKind('agent.finished')(events).some((e) => e.agent === 'peer-1');
        return waiting.length === 2 && answered.length === 2 && done && heldCalls === 1 ? waiting : null;
      },
      'two parked merge requests, both answered, peer-1 finished',
    );
    const mrOf = (agent: string) => parked.find((e) => e.agent === agent)?.data.mr ?? 0;
    const [mrA, mrB] = [mrOf('peer-1'), mrOf('peer-2')];
    let events = await store.log.read(runId);
    const answers = ofKind('tool.finished')(events).filter((e) => e.data.name === 'merge_request');
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      expect(answer.data.isError).toBe(false);
      // Peers submit and move on: queued at once, told that a person approves it.
      expect(answer.data.content).toMatch(/is queued .*waits for approval by a person/);
    }
    // Nothing lands without a decision, and the run waits for one.
    expect(ofKind('merge.landed')(events)).toEqual([]);
    expect(ofKind('run.finished')(events)).toEqual([]);

    // The process dies; resume runs the same spec, and its queue takes the parked requests over.
    run.child.kill('SIGKILL');
    await run.closed;
    const spec = await loadRunSpec(store.log, runId);
    expect(spec?.ok && spec.spec.approveMerges).toBe(true);
    const resumed = spawnColony(['resume', runId, '--json']);
    await untilLog(
      runId,
      (e) => ofKind('merge.awaiting_approval')(e).length === 4 && heldCalls === 2,
      'both requests parked again after the resume',
    );

    const approved = await colony(['approve', runId, String(mrA)]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`approved merge request ${mrA} of run ${runId}`);
    await untilLog(runId, (e) => ofKind('merge.landed')(e).find((l) => l.data.mr === mrA), 'MR A landed');

    // The dashboard's Reject button: token required, a reason required.
    const rejectPath = `/api/runs/${runId}/merges/${mrB}/reject`;
    expect((await request(server.url, 'POST', rejectPath, { body: { reason: REASON } })).status).toBe(401);
    expect((await request(server.url, 'POST', rejectPath, { token: TOKEN, body: {} })).status).toBe(400);
    const rejected = await request(server.url, 'POST', rejectPath, {
      token: TOKEN,
      body: { reason: REASON },
    });
    expect(rejected.status, rejected.text).toBe(200);
    await untilLog(
      runId,
      (e) => ofKind('message.sent')(e).find((m) => m.data.to === 'peer-2' && m.data.text.includes(REASON)),
      "the rejection's direct message to peer-2",
    );
    rejectionSent.resolve();

    // peer-2 fixes the typo; its new request is parked too, and the dashboard's Approve lands it.
    const mrC = await untilLog(
      runId,
      (e) =>
        ofKind('merge.awaiting_approval')(e).find((w) => w.data.mr !== mrA && w.data.mr !== mrB)?.data.mr,
      "peer-2's fixed request parked",
    );
    const approvePath = `/api/runs/${runId}/merges/${mrC}/approve`;
    expect((await request(server.url, 'POST', approvePath)).status).toBe(401);
    expect((await request(server.url, 'POST', approvePath, { token: TOKEN })).status).toBe(200);

    expect(await resumed.closed).toBe(0);
    const summary = lastJsonLine(resumed.output());
    expect(summary.status).toBe('succeeded');
    expect(sawReason).toBe(true);
    events = await store.log.read(runId);
    expect(ofKind('merge.landed')(events).map((e) => e.data.mr)).toEqual([mrA, mrC]);
    expect(ofKind('merge.approved')(events).map((e) => e.data)).toEqual([
      { mr: mrA, by: 'user' },
      { mr: mrC, by: 'user' },
    ]);
    expect(ofKind('merge.declined')(events).map((e) => e.data)).toEqual([
      { mr: mrB, by: 'user', reason: REASON },
    ]);
    const reject = ofKind('merge.rejected')(events);
    expect(reject).toHaveLength(1);
    expect(reject[0]).toMatchObject({
      agent: 'peer-2',
      data: {
        mr: mrB,
        reason: 'review_rejected',
        files: ['src/beta/value.txt'],
        output: `rejected by user: ${REASON}`,
      },
    });
    // Each author hears the decision on a request it was told waits for approval.
    const told = ofKind('message.sent')(events).filter((m) => m.data.to === 'peer-1');
    expect(told.some((m) => m.data.text.includes(`Your merge request ${mrA} was approved and landed`))).toBe(
      true,
    );
  }, 300_000);

  it('refuses --approve-merges where no merge waits for a person', async () => {
    const solo = await colony(['run', '--goal', 'g', '--approve-merges']);
    expect(solo.code).toBe(2);
    expect(solo.stderr).toMatch(/--approve-merges needs --topology peers or orchestrated/);
    const both = await colony([
      'run',
      '--goal',
      'g',
      '--topology',
      'peers',
      '--agents',
      '2',
      '--verify',
      'true',
      '--integrators',
      '1',
      '--approve-merges',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--approve-merges and --integrators are two ways to review merges/);
  });

  it('colony reject records the decision with its reason; it needs a reason and a request still undecided', async () => {
    const runId = testRunId('reject-cli');
    const created = await store.runs.createRun({
      runId,
      topology: 'peers',
      goal: 'g',
      repo: '/tmp/none',
      pid: process.pid,
      host: 'test',
      config: {},
    });
    if (!created.ok) throw new Error(created.error);
    await store.log.append({
      runId,
      agent: 'peer-1',
      kind: 'merge.requested',
      data: { mr: 1, branch: 'agent/peer-1', commit: 'a'.repeat(40), note: 'n' },
    });
    await store.log.append({
      runId,
      agent: 'peer-1',
      kind: 'merge.awaiting_approval',
      data: { mr: 1, commit: 'b'.repeat(40) },
    });
    const noReason = await colony(['reject', runId, '1']);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toMatch(/--reason TEXT is required/);
    const unknown = await colony(['reject', runId, '7', '--reason', 'no']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/has no merge request 7/);
    const ok = await colony(['reject', runId, '1', '--reason', 'split it in two']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`rejected merge request 1 of run ${runId}`);
    const declined = await store.log.read(runId, { kinds: ['merge.declined'] });
    expect(declined.map((e) => e.data)).toEqual([{ mr: 1, by: 'user', reason: 'split it in two' }]);
    // The first decision counts.
    const late = await colony(['approve', runId, '1']);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/already rejected by user/);
  });
});

async function untilLogOutput<T>(check: () => T | null | undefined): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > end) throw new Error('timed out waiting for the run id');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
