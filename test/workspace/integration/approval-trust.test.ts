/**
 * Who may decide on a merge request, on real git and Postgres: decisions forged into the log (the
 * author approving itself, a peer without the review tools, an agent writing as the user, a name
 * that is nobody, an agent writing in an integrator's name) leave the request parked and are each
 * recorded once as merge.approval_ignored; the user's decision and an integrator's (not the author)
 * count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput, StoredEvent } from '../../../src/core/events.js';
import type { Store } from '../../../src/store/index.js';
import { whyDecisionIgnored } from '../../../src/workspace/integration/deciders.js';
import { approveFromOutside } from '../../../src/workspace/integration/index.js';
import { type IgnoredDecision, MrLedger } from '../../../src/workspace/integration/ledger.js';
import { createReviewTools } from '../../../src/workspace/integration/review-tools.js';
import { openTestStore } from '../../helpers/db.js';
import { sh } from '../helpers.js';
import { commitFiles, type Fixture, makeFixture } from './fixture.js';

let store: Store;
const fixtures: Fixture[] = [];
const ending = new AbortController();

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  ending.abort();
  for (const f of fixtures) f.cleanup();
  await store.close();
});

async function fixture(label: string): Promise<Fixture> {
  const f = await makeFixture(store, label);
  fixtures.push(f);
  return f;
}

/** What a topology logs when it starts an agent; integrators get the review tools. */
function started(runId: string, agent: string, integrator: boolean): EventInput {
  const tools = integrator
    ? ['bash', 'merge_request', 'review_queue', 'review_merge']
    : ['bash', 'merge_request'];
  return {
    runId,
    agent,
    kind: 'agent.started',
    data: { profile: 'peer', model: 'fake', task: 'g', system: 's', tools, maxSteps: 10 },
  };
}

function approval(runId: string, mr: number, agent: string | null, by: string): EventInput {
  return { runId, agent, kind: 'merge.approved', data: { mr, by } };
}

async function until<T>(probe: () => Promise<T | null> | T | null, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const ignoredOf = async (runId: string): Promise<StoredEvent<'merge.approval_ignored'>[]> =>
  store.log.read(runId, { kinds: ['merge.approval_ignored'] });

describe('who may decide on a merge request', () => {
  it('the rule: the user from outside, or an integrator who is not the author', () => {
    const integrators = new Set(['peer-1', 'peer-3']);
    const why = (agent: string | null, by: string) =>
      whyDecisionIgnored({ agent, by }, 'peer-1', integrators);
    expect(why(null, 'user')).toBeNull();
    expect(why('peer-3', 'peer-3')).toBeNull();
    expect(why('peer-1', 'peer-1')).toMatch(/peer-1 is the author/);
    expect(why('peer-2', 'peer-2')).toMatch(/peer-2 is not an integrator/);
    expect(why('peer-3', 'user')).toMatch(/agent peer-3 cannot decide in the name of the user/);
    expect(why(null, 'mallory')).toMatch(/"mallory" is not the user/);
    expect(why(null, 'peer-3')).toMatch(/not the user, and no agent of the run recorded it/);
    expect(why('peer-2', 'peer-3')).toMatch(/recorded by peer-2 in the name of peer-3/);
    expect(why('integration', 'integration')).toMatch(/reserved name/);
    expect(whyDecisionIgnored({ agent: null, by: 'user' }, undefined, integrators)).toBe(
      'no such merge request',
    );
  });

  it('forged approvals and declines leave the request parked and are logged once each; an integrator lands it', async () => {
    const f = await fixture('trust');
    const queue = f.queue({ approval: 'manual', approvalPollMs: 30, signal: ending.signal });
    for (const [agent, integrator] of [
      ['peer-1', true],
      ['peer-2', false],
      ['peer-3', true],
    ] as const)
      await store.log.append(started(f.runId, agent, integrator));
    const author = await f.agent('peer-1');
    commitFiles(author.path, { 'src/peer-1.txt': 'one\n' }, 'peer-1');
    const mainBefore = sh(f.hub, 'rev-parse', 'main');
    const queued = await queue.enqueue({ agent: 'peer-1', branch: author.branch, note: 'adds peer-1' });
    expect(queued).toMatchObject({ ok: true, mr: 1 });
    const outcome = queue.outcome(1);
    await until(() => (queue.awaitingApproval().includes(1) ? true : null), 'MR 1 parked');

    const forged: EventInput[] = [
      approval(f.runId, 1, 'peer-1', 'peer-1'),
      approval(f.runId, 1, 'peer-2', 'peer-2'),
      approval(f.runId, 1, 'peer-2', 'user'),
      approval(f.runId, 1, null, 'mallory'),
      approval(f.runId, 1, 'peer-2', 'peer-3'),
      {
        runId: f.runId,
        agent: 'peer-2',
        kind: 'merge.declined',
        data: { mr: 1, by: 'peer-2', reason: 'no' },
      },
    ];
    const seqs: number[] = [];
    for (const event of forged) seqs.push((await store.log.append(event)).seq);
    const ignored = await until(
      async () => ((await ignoredOf(f.runId)).length >= forged.length ? ignoredOf(f.runId) : null),
      'every forged decision logged as ignored',
    );
    // Several more polls: still parked, nothing landed, nothing logged twice.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(queue.awaitingApproval()).toEqual([1]);
    expect(sh(f.hub, 'rev-parse', 'main')).toBe(mainBefore);
    expect(await store.log.read(f.runId, { kinds: ['merge.landed', 'merge.rejected'] })).toEqual([]);
    expect(await ignoredOf(f.runId)).toHaveLength(forged.length);
    // The queue records them (agent null); `agent` in the data is who wrote the forged event.
    expect(ignored.map((e) => e.agent)).toEqual(forged.map(() => null));
    expect(ignored.map(({ data }) => [data.mr, data.by, data.agent, data.decision, data.seq])).toEqual([
      [1, 'peer-1', 'peer-1', 'approve', seqs[0]],
      [1, 'peer-2', 'peer-2', 'approve', seqs[1]],
      [1, 'user', 'peer-2', 'approve', seqs[2]],
      [1, 'mallory', null, 'approve', seqs[3]],
      [1, 'peer-3', 'peer-2', 'approve', seqs[4]],
      [1, 'peer-2', 'peer-2', 'decline', seqs[5]],
    ]);
    expect(ignored.map((e) => e.data.reason)).toEqual([
      'peer-1 is the author: nobody decides on their own merge request',
      'peer-2 is not an integrator of this run',
      'agent peer-2 cannot decide in the name of the user',
      '"mallory" is not the user, and no agent of the run recorded it',
      'recorded by peer-2 in the name of peer-3',
      'peer-2 is not an integrator of this run',
    ]);

    // A fresh reader of the log (another process) sees they were all recorded: it tells nobody again.
    const reader = new MrLedger(store.log, f.runId);
    const toldAgain: IgnoredDecision[] = [];
    reader.onIgnored((d) => toldAgain.push(d));
    await reader.refresh();
    expect(toldAgain).toEqual([]);
    expect([...reader.ignored.keys()]).toEqual(seqs);
    expect(reader.approvals.has(1)).toBe(false);
    // The forged decline does not count either: the user could still approve (it is not "already rejected").
    expect(reader.declines.has(1)).toBe(false);

    // An integrator who is not the author decides: it lands.
    await store.log.append(approval(f.runId, 1, 'peer-3', 'peer-3'));
    expect(await outcome).toMatchObject({ status: 'landed', mr: 1 });
    expect(await ignoredOf(f.runId)).toHaveLength(forged.length);
  });

  it('the review tool writes in its own name and its approval counts only for an integrator; the user approves from outside', async () => {
    const f = await fixture('trust-tool');
    const queue = f.queue({ approval: 'manual', approvalPollMs: 30, signal: ending.signal });
    // peer-2 was started without the review tools: given them by mistake, its approval still does not count.
    await store.log.append(started(f.runId, 'peer-1', true));
    await store.log.append(started(f.runId, 'peer-2', false));
    const tools = (agent: string) =>
      createReviewTools({ runId: f.runId, agent, queue, hubPath: f.hub, log: store.log });
    expect(() => tools('user')).toThrow(/reserved name/);
    const review = (agent: string) => {
      const tool = tools(agent).find((t) => t.spec.name === 'review_merge');
      if (!tool) throw new Error('no review_merge');
      return tool;
    };

    const one = await f.agent('peer-1');
    const two = await f.agent('peer-2');
    commitFiles(one.path, { 'src/one.txt': 'one\n' }, 'one');
    commitFiles(two.path, { 'src/two.txt': 'two\n' }, 'two');
    await queue.enqueue({ agent: 'peer-1', branch: one.branch, note: 'one' });
    await queue.enqueue({ agent: 'peer-2', branch: two.branch, note: 'two' });
    const first = queue.outcome(1);
    const second = queue.outcome(2);
    await until(() => (queue.awaitingApproval().length === 2 ? true : null), 'both parked');

    const own = await review('peer-1').run({ mr: 1, decision: 'approve', reason: 'mine' }, {});
    expect(own).toMatchObject({ isError: true });
    expect(own.content).toMatch(/your own change/);
    const stranger = await review('peer-2').run({ mr: 1, decision: 'approve', reason: 'looks fine' }, {});
    expect(stranger).toMatchObject({ isError: true });
    expect(stranger.content).toMatch(/did not count/);
    expect(queue.awaitingApproval()).toEqual([1, 2]);
    const logged = await store.log.read(f.runId, { kinds: ['merge.approved'] });
    expect(logged.map((e) => [e.agent, e.data.by])).toEqual([['peer-2', 'peer-2']]);
    const ignored = await until(
      async () => ((await ignoredOf(f.runId)).length > 0 ? ignoredOf(f.runId) : null),
      'ignored logged',
    );
    expect(ignored.map((e) => e.data)).toEqual([
      expect.objectContaining({ mr: 1, by: 'peer-2', reason: 'peer-2 is not an integrator of this run' }),
    ]);

    const integrator = await review('peer-1').run({ mr: 2, decision: 'approve', reason: 'checked' }, {});
    expect(integrator).toMatchObject({ isError: false });
    expect(await second).toMatchObject({ status: 'landed', mr: 2 });
    expect(await approveFromOutside(store.log, f.runId, 1)).toEqual({ ok: true });
    expect(await first).toMatchObject({ status: 'landed', mr: 1 });
    const approvals = await store.log.read(f.runId, { kinds: ['merge.approved'] });
    expect(approvals.map((e) => [e.agent, e.data])).toEqual([
      ['peer-2', { mr: 1, by: 'peer-2' }],
      ['peer-1', { mr: 2, by: 'peer-1' }],
      [null, { mr: 1, by: 'user' }],
    ]);
    expect(await ignoredOf(f.runId)).toHaveLength(1);
  });
});
