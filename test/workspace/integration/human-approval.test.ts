/**
 * The queue with approval 'human' (`colony run --approve-merges`), on real git and Postgres: the
 * requester is answered as soon as its verified request is parked; decisions come from the log
 * (approveFromOutside / rejectFromOutside, as `colony approve` / `colony reject` and the dashboard
 * write them) and reach the author as direct messages; close() waits for the decisions; a new
 * queue of the run takes over what a previous process had parked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import {
  approveFromOutside,
  createMergeRequestTool,
  rejectFromOutside,
} from '../../../src/workspace/integration/index.js';
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
  // Lets the queues' close() return with requests still parked.
  ending.abort();
  for (const f of fixtures) f.cleanup();
  await store.close();
});

async function fixture(label: string): Promise<Fixture> {
  const f = await makeFixture(store, label);
  fixtures.push(f);
  return f;
}

const human = { approval: 'human' as const, approvalPollMs: 50, signal: ending.signal };

describe('integration queue with human approval', () => {
  it('answers merge_request when the request is parked; a rejection from outside reaches the author with the reason', async () => {
    const f = await fixture('human-reject');
    const queue = f.queue(human);
    const ivy = await f.agent('ivy');
    const tool = createMergeRequestTool({
      runId: f.runId,
      agent: 'ivy',
      worktree: ivy.path,
      branch: ivy.branch,
      publish: ivy.publish,
      queue,
      hubPath: f.hub,
      log: store.log,
    });
    commitFiles(ivy.path, { 'src/ivy.txt': 'ivy\n' }, 'ivy');
    const mainBefore = sh(f.hub, 'rev-parse', 'main');
    const answer = await tool.run({ note: 'adds ivy' }, {});
    expect(answer.isError).toBe(false);
    expect(answer.content).toMatch(/Merge request 1 passed the merge check \(`sh check.sh` passed/);
    expect(answer.content).toMatch(/waiting for approval/);
    expect(queue.awaitingApproval()).toEqual([1]);
    expect(sh(f.hub, 'rev-parse', 'main')).toBe(mainBefore);

    const outcome = queue.outcome(1);
    expect(await rejectFromOutside(store.log, f.runId, 1, '  ')).toMatchObject({ ok: false });
    expect(await rejectFromOutside(store.log, f.runId, 1, 'name the file after the agent')).toEqual({
      ok: true,
    });
    const result = await outcome;
    expect(result).toMatchObject({
      status: 'rejected',
      reason: 'review_rejected',
      files: ['src/ivy.txt'],
      output: 'rejected by user: name the file after the agent',
    });
    expect(f.dms.at(-1)).toMatchObject({ to: 'ivy', from: 'integration' });
    expect(f.dms.at(-1)?.text).toMatch(/merge request 1 was rejected[\s\S]*name the file after the agent/);
    // The first decision counts: a rejected request cannot be approved any more.
    expect(await approveFromOutside(store.log, f.runId, 1)).toMatchObject({ ok: false });
    expect(sh(f.hub, 'rev-parse', 'main')).toBe(mainBefore);
  });

  it('lands a parked request once it is approved from outside, tells the author, and close() waits for it', async () => {
    const f = await fixture('human-approve');
    const queue = f.queue(human);
    const jo = await f.agent('jo');
    commitFiles(jo.path, { 'src/jo.txt': 'jo\n' }, 'jo');
    const queued = await queue.enqueue({ agent: 'jo', branch: jo.branch, note: 'adds jo' });
    expect(queued).toMatchObject({ ok: true, mr: 1 });
    expect(await queue.reply(1)).toMatchObject({ status: 'awaiting_approval', mr: 1 });
    // Every agent is done and the run closes its queue: it stays open while a request is parked.
    let closed = false;
    const closing = queue.close().then(() => {
      closed = true;
    });
    expect(closed).toBe(false);
    expect(await approveFromOutside(store.log, f.runId, 1)).toEqual({ ok: true });
    await closing;
    const landed = await store.log.read(f.runId, { kinds: ['merge.landed'] });
    expect(landed.map((e) => e.data.mr)).toEqual([1]);
    expect(sh(f.hub, 'rev-parse', 'main')).toBe(landed[0]?.data.commit);
    expect(f.dms.at(-1)).toMatchObject({ to: 'jo' });
    expect(f.dms.at(-1)?.text).toMatch(
      /Your merge request 1 was approved and landed on main as [0-9a-f]{10}/,
    );
  });

  it('a new queue of the run takes over the requests a previous process had parked', async () => {
    const f = await fixture('human-recover');
    const gone = new AbortController();
    const first = f.queue({ ...human, signal: gone.signal });
    const kim = await f.agent('kim');
    commitFiles(kim.path, { 'src/kim.txt': 'kim\n' }, 'kim');
    await first.enqueue({ agent: 'kim', branch: kim.branch, note: 'adds kim' });
    expect(await first.reply(1)).toMatchObject({ status: 'awaiting_approval' });
    // The process ends (a stop) with the request parked; nobody submits it again.
    gone.abort();
    await first.close();
    const second = f.queue(human);
    expect(await second.reply(1)).toMatchObject({ status: 'awaiting_approval', mr: 1 });
    expect(second.awaitingApproval()).toEqual([1]);
    expect(await approveFromOutside(store.log, f.runId, 1)).toEqual({ ok: true });
    expect(await second.outcome(1)).toMatchObject({ status: 'landed', mr: 1 });
    expect(f.dms.at(-1)?.text).toMatch(/Your merge request 1 was approved and landed/);
  });
});
