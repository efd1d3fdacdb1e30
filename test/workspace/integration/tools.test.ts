import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import { createMergeRequestTool, createSyncTool } from '../../../src/workspace/integration/index.js';
import { createMergeStatusTool } from '../../../src/workspace/integration/tools.js';
import { openTestStore } from '../../helpers/db.js';
import { sh, write } from '../helpers.js';
import { commitFiles, type Fixture, makeFixture } from './fixture.js';

let store: Store;
let f: Fixture;

beforeAll(async () => {
  store = await openTestStore();
  f = await makeFixture(store, 'tools');
});

afterAll(async () => {
  f.cleanup();
  await store.close();
});

describe('merge_request and sync tools', () => {
  it('merge_request commits uncommitted work with the note, waits and reports the landed commit', async () => {
    const queue = f.queue();
    const ivy = await f.ownRepo('ivy');
    const ctx = {
      runId: f.runId,
      agent: 'ivy',
      worktree: ivy.path,
      branch: ivy.branch,
      publish: ivy.publish,
      queue,
      hubPath: f.hub,
      log: store.log,
    };
    const tool = createMergeRequestTool(ctx);
    expect(tool.spec.name).toBe('merge_request');
    expect(tool.mutates).toBe(true);
    write(ivy.path, 'src/ivy.txt', 'ivy\n');
    const result = await tool.run({ note: 'add ivy.txt' }, {});
    const main = sh(f.hub, 'rev-parse', 'main');
    expect(result.isError).toBe(false);
    expect(result.content).toContain(`landed on main as ${main}`);
    expect(result.content).toContain('src/ivy.txt');
    expect(sh(f.hub, 'log', '-1', '--format=%s', 'agent/ivy')).toBe('add ivy.txt');
    expect(sh(f.hub, 'log', '-1', '--format=%s%n%b', 'main')).toContain('Colony-MR: 1');
    // Nothing left to land.
    const empty = await tool.run({ note: 'again' }, {});
    expect(empty.isError).toBe(false);
    expect(empty.content).toContain('nothing_to_merge');
    // Invalid arguments are an error result, never a throw.
    expect((await tool.run({}, {})).isError).toBe(true);
  });

  it('merge_request reports a conflict; sync lists what landed and brings main in', async () => {
    const queue = f.queue();
    const jay = await f.ownRepo('jay');
    const kim = await f.ownRepo('kim');
    const jayCtx = {
      runId: f.runId,
      agent: 'jay',
      worktree: jay.path,
      branch: jay.branch,
      publish: jay.publish,
      queue,
      hubPath: f.hub,
      log: store.log,
    };
    const kimCtx = { ...jayCtx, agent: 'kim', worktree: kim.path, branch: kim.branch, publish: kim.publish };
    write(jay.path, 'src/shared.txt', 'ALPHA-jay\nbeta\ngamma\n');
    expect((await createMergeRequestTool(jayCtx).run({ note: 'jay alpha' }, {})).isError).toBe(false);
    write(kim.path, 'src/shared.txt', 'alpha-kim\nbeta\ngamma\n');
    const rejected = await createMergeRequestTool(kimCtx).run({ note: 'kim alpha' }, {});
    expect(rejected.isError).toBe(true);
    expect(rejected.content).toContain('conflict');
    expect(rejected.content).toContain('src/shared.txt');
    const sync = createSyncTool(kimCtx);
    const conflict = await sync.run({}, {});
    expect(conflict.isError).toBe(true);
    expect(conflict.content).toContain('src/shared.txt');
    expect(conflict.content).toMatch(/MR \d+ by jay .*jay alpha/);
    // A non-conflicting agent: sync commits its WIP and rebases it onto main.
    const lee = await f.ownRepo('lee');
    commitFiles(lee.path, { 'src/lee.txt': 'lee\n' }, 'lee commit');
    write(lee.path, 'src/lee2.txt', 'wip\n');
    const leeSync = createSyncTool({
      ...jayCtx,
      agent: 'lee',
      worktree: lee.path,
      branch: lee.branch,
      publish: lee.publish,
    });
    const synced = await leeSync.run({}, {});
    expect(synced.isError).toBe(false);
    expect(synced.content).toContain('WIP');
    expect(synced.content).toContain('now on top of main');
    expect(sh(lee.path, 'merge-base', '--is-ancestor', 'main', 'HEAD')).toBe('');
    expect(sh(lee.path, 'status', '--porcelain')).toBe('');
    const again = await leeSync.run({}, {});
    expect(again.content).toContain('Already up to date');
    expect(again.content).toContain('Nothing landed since your last sync');
    const events = await store.log.read(f.runId, { agent: 'lee', kinds: ['workspace.synced'] });
    expect(events.map((e) => e.data)).toMatchObject([{ landedSince: 2, conflicts: [] }, { landedSince: 0 }]);
  });
  it("sync reads a stopped merge or rebase from the repository's own files: refs the agent named MERGE_HEAD or REBASE_HEAD are not one", async () => {
    const max = await f.ownRepo('max');
    // git's rev-parse resolves MERGE_HEAD to refs/heads/MERGE_HEAD too: every sync then refused.
    sh(max.path, 'branch', 'MERGE_HEAD');
    sh(max.path, 'tag', 'REBASE_HEAD');
    const sync = createSyncTool({
      runId: f.runId,
      agent: 'max',
      worktree: max.path,
      branch: max.branch,
      publish: max.publish,
      queue: f.queue(),
      hubPath: f.hub,
      log: store.log,
    });
    const synced = await sync.run({}, {});
    expect(synced.isError).toBe(false);
    expect(synced.content).not.toContain('in progress');
    expect(sh(max.path, 'symbolic-ref', '--short', 'HEAD')).toBe('agent/max');
    expect(sh(max.path, 'rev-parse', 'HEAD')).toBe(sh(f.hub, 'rev-parse', 'main'));
  });

  it('submit and move on: merge_request answers when queued, the outcome comes by message, merge_status tells', async () => {
    const queue = f.queue();
    const lea = await f.ownRepo('lea');
    const ctx = {
      runId: f.runId,
      agent: 'lea',
      worktree: lea.path,
      branch: lea.branch,
      publish: lea.publish,
      queue,
      hubPath: f.hub,
      log: store.log,
      submitAndMoveOn: true,
    };
    const status = createMergeStatusTool(ctx);
    write(lea.path, 'src/lea.txt', 'lea\n');
    const dmsBefore = f.dms.length;
    const queued = await createMergeRequestTool(ctx).run({ note: 'add lea.txt' }, {});
    expect(queued.isError).toBe(false);
    const mr = Number(/Merge request (\d+) is queued/.exec(queued.content)?.[1]);
    expect(mr).toBeGreaterThan(0);
    expect(queued.content).toMatch(/direct message/);
    // Waiting through merge_status gives the outcome; the author was also told by message.
    const landed = await status.run({ mr, wait: true }, {});
    expect(landed).toMatchObject({ isError: false });
    expect(landed.content).toContain(
      `Merge request ${mr} landed on main as ${sh(f.hub, 'rev-parse', 'main')}`,
    );
    const told = f.dms.slice(dmsBefore).filter((m) => m.to === 'lea');
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toMatch(new RegExp(`^Your merge request ${mr} landed on main as `));
    expect((await status.run({ mr }, {})).content).toContain('landed on main');
    // An empty change is told by message too (it is not a FAIL for anyone else).
    const again = await createMergeRequestTool(ctx).run({ note: 'nothing new' }, {});
    const emptyMr = Number(/Merge request (\d+) is queued/.exec(again.content)?.[1]);
    const empty = await status.run({ mr: emptyMr, wait: true }, {});
    expect(empty.content).toContain('nothing_to_merge');
    expect(
      f.dms
        .slice(dmsBefore)
        .filter((m) => m.to === 'lea')
        .at(-1)?.text,
    ).toMatch(/changes nothing on main/);
    // Unknown ids are errors, with and without wait.
    expect((await status.run({ mr: 9999 }, {})).isError).toBe(true);
    expect((await status.run({ mr: 9999, wait: true }, {})).isError).toBe(true);
  });
});
