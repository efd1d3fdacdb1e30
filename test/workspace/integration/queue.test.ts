import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import { approveFromOutside, syncWorktree } from '../../../src/workspace/integration/index.js';
import { localIntegrationLock } from '../../../src/workspace/integration/lock.js';
import { openTestStore } from '../../helpers/db.js';
import { sh, write } from '../helpers.js';
import { commitFiles, type Fixture, makeFixture } from './fixture.js';

let store: Store;
const fixtures: Fixture[] = [];

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  for (const f of fixtures) f.cleanup();
  await store.close();
});

async function fixture(label: string): Promise<Fixture> {
  const f = await makeFixture(store, label);
  fixtures.push(f);
  return f;
}

const verifyRuns = (f: Fixture): number => {
  try {
    return readFileSync(f.countFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
  } catch {
    return 0;
  }
};

/** Every commit ever submitted or made by an agent is reachable from some hub ref. */
function unreachable(f: Fixture, commits: string[]): string[] {
  const reachable = new Set(sh(f.hub, 'rev-list', '--all').split('\n'));
  return commits.filter((c) => !reachable.has(c));
}

describe('integration queue', () => {
  it('lands one of two same-line edits, rejects the other naming the file; it lands after sync and a fix', async () => {
    const f = await fixture('conflict');
    const queue = f.queue({ batchSize: 1 });
    const alice = await f.agent('alice');
    const bob = await f.agent('bob');
    const aliceCommit = commitFiles(alice.path, { 'src/shared.txt': 'alpha\nBETA-alice\ngamma\n' }, 'alice');
    const bobCommit = commitFiles(bob.path, { 'src/shared.txt': 'alpha\nbeta-bob\ngamma\n' }, 'bob');

    const first = await queue.submit({ agent: 'alice', branch: alice.branch, note: 'alice edits beta' });
    expect(first.status).toBe('landed');
    const second = await queue.submit({ agent: 'bob', branch: bob.branch, note: 'bob edits beta' });
    expect(second).toMatchObject({ status: 'rejected', reason: 'conflict', files: ['src/shared.txt'] });
    // The agents' branches are exactly as they were.
    expect(sh(f.hub, 'rev-parse', 'agent/alice')).toBe(aliceCommit);
    expect(sh(f.hub, 'rev-parse', 'agent/bob')).toBe(bobCommit);
    // Hooks: PATCH for alice with the landed hash, FAIL for bob naming the file, a direct message to bob.
    expect(first.status === 'landed' && f.posts[0]?.detail?.includes(first.commit)).toBe(true);
    expect(f.posts[0]).toMatchObject({ author: 'alice', kind: 'PATCH', scope: ['src/shared.txt'] });
    expect(f.posts[1]).toMatchObject({ author: 'bob', kind: 'FAIL', scope: ['src/shared.txt'] });
    expect(f.posts[1]?.summary).toContain('src/shared.txt');
    expect(f.posts[1]?.summary.length).toBeLessThanOrEqual(200);
    expect(f.dms).toHaveLength(1);
    expect(f.dms[0]).toMatchObject({ to: 'bob', from: 'integration' });
    expect(f.dms[0]?.text).toContain('src/shared.txt');

    const syncBob = (mode: 'rebase' | 'merge') =>
      syncWorktree({
        runId: f.runId,
        agent: 'bob',
        worktree: bob.path,
        publish: bob.publish,
        hubPath: f.hub,
        log: store.log,
        mode,
      });
    // sync (rebase) reports the conflict and leaves bob's worktree as it was.
    const synced = await syncBob('rebase');
    expect(synced).toMatchObject({ ok: true, status: 'conflict', conflicts: ['src/shared.txt'] });
    expect(sh(bob.path, 'rev-parse', 'HEAD')).toBe(bobCommit);
    expect(sh(bob.path, 'status', '--porcelain')).toBe('');
    expect(synced.ok && synced.landed.map((l) => l.mr)).toEqual([first.status === 'landed' ? first.mr : -1]);
    // sync with merge leaves markers; bob resolves them and lands.
    const unresolved = { ok: true, status: 'conflict', merging: true, conflicts: ['src/shared.txt'] };
    expect(await syncBob('merge')).toMatchObject(unresolved);
    expect(readFileSync(`${bob.path}/src/shared.txt`, 'utf8')).toContain('<<<<<<<');
    // Asked again before resolving (the same call run again after a crash): the same answer, and the
    // markers stay as they are.
    const markers = readFileSync(`${bob.path}/src/shared.txt`, 'utf8');
    expect(await syncBob('merge')).toMatchObject(unresolved);
    expect(readFileSync(`${bob.path}/src/shared.txt`, 'utf8')).toBe(markers);
    write(bob.path, 'src/shared.txt', 'alpha\nBETA-alice\nbeta-bob\ngamma\n');
    sh(bob.path, 'add', '-A');
    sh(bob.path, 'commit', '--quiet', '--no-edit');
    const third = await queue.submit({
      agent: 'bob',
      branch: bob.branch,
      note: 'bob edits beta, after sync',
    });
    expect(third.status).toBe('landed');
    expect(sh(f.hub, 'show', 'main:src/shared.txt')).toBe('alpha\nBETA-alice\nbeta-bob\ngamma');
    // A second sync lists nothing new except bob's own landing.
    const again = await syncBob('rebase');
    expect(again.ok && again.landed.map((l) => l.agent)).toEqual(['bob']);
    // ids unique and increasing; agent commits reachable.
    const ids = [first, second, third].map((r) => (r.status === 'error' ? -1 : r.mr));
    expect(ids).toEqual([1, 2, 3]);
    expect(unreachable(f, [aliceCommit, bobCommit])).toEqual([]);
    expect(sh(f.hub, 'rev-parse', 'refs/colony/mr/2')).toBe(bobCommit);
  });

  it('rejects a change that breaks verify; main stays green', async () => {
    const f = await fixture('breaks');
    const queue = f.queue({ batchSize: 1 });
    const carol = await f.agent('carol');
    commitFiles(carol.path, { 'src/bad.txt': 'BROKEN\n' }, 'break it');
    const mainBefore = sh(f.hub, 'rev-parse', 'main');
    const result = await queue.submit({ agent: 'carol', branch: carol.branch, note: 'adds bad.txt' });
    expect(result).toMatchObject({ status: 'rejected', reason: 'verify_failed', files: ['src/bad.txt'] });
    expect(result.status === 'rejected' && result.output).toContain('FAIL: BROKEN found');
    expect(sh(f.hub, 'rev-parse', 'main')).toBe(mainBefore);
    expect(f.posts[0]?.kind).toBe('FAIL');
    expect(f.posts[0]?.detail).toContain('FAIL: BROKEN found');
    expect(f.dms[0]?.to).toBe('carol');
    // Main still passes verify.
    sh(f.hub, 'worktree', 'add', '--quiet', '--detach', `${f.dir}/main-check`, 'main');
    const onMain = spawnSync('sh', ['check.sh'], {
      cwd: `${f.dir}/main-check`,
      env: { ...process.env, VERIFY_COUNT_FILE: `${f.dir}/ignored` },
    });
    expect(onMain.status).toBe(0);
    const events = await store.log.read(f.runId, { kinds: ['merge.rejected'] });
    expect(events.map((e) => e.data)).toMatchObject([{ mr: 1, reason: 'verify_failed' }]);
  });

  it('nothing to merge is its own outcome, not a FAIL', async () => {
    const f = await fixture('empty');
    const queue = f.queue();
    const dan = await f.agent('dan');
    const result = await queue.submit({ agent: 'dan', branch: dan.branch, note: 'no change' });
    expect(result).toMatchObject({ status: 'rejected', reason: 'nothing_to_merge' });
    expect(f.posts).toEqual([]);
    expect(f.dms).toEqual([]);
  });

  it('tests a batch as one candidate, bisects around a bad request and lands the good ones', async () => {
    const f = await fixture('batch');
    // The integration lock is held while the eight are queued in order, so they form one batch of 8
    // (a1..a8 as MR 1..8). No flake retry: this counts bisection alone (the retry is tested below).
    const lock = localIntegrationLock();
    let open = () => {};
    const held = lock.withLock(f.runId, 'integrate', () => new Promise<void>((resolve) => (open = resolve)));
    const queue = f.queue({ batchSize: 8, flakeRetries: 0, lock });
    const names = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'];
    const agents = await Promise.all(names.map((n) => f.agent(n)));
    const commits = agents.map((a, i) =>
      commitFiles(
        a.path,
        { [`src/${names[i]}.txt`]: i === 5 ? 'BROKEN\n' : `${names[i]}\n` },
        names[i] ?? '',
      ),
    );
    const mrs: number[] = [];
    for (const [i, a] of agents.entries()) {
      const queued = await queue.enqueue({
        agent: names[i] ?? '',
        branch: a.branch,
        note: `add ${names[i]}`,
      });
      if (!queued.ok) throw new Error(queued.error);
      mrs.push(queued.mr);
    }
    open();
    await held;
    const results = await Promise.all(mrs.map((mr) => queue.outcome(mr)));
    const landed = results.filter((r) => r.status === 'landed');
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(results[5]).toMatchObject({ status: 'rejected', reason: 'verify_failed', files: ['src/a6.txt'] });
    expect(landed).toHaveLength(7);
    // One main commit per landed request, linear, on top of the base.
    const log = f.mainLog();
    expect(log).toHaveLength(8);
    expect(log.at(-1)).toBe(f.base);
    expect(sh(f.hub, 'rev-list', '--merges', 'main')).toBe('');
    // 8 fails; 1–4 pass and land; 5–8 has the failed tree (cached, not run); 5–6 fails; 5 passes and
    // lands; 6 on top of 5 has the failed tree (cached): rejected; 7–8 pass. Five runs, not 8 × 2.
    expect(queue.stats.verifyRuns).toBe(verifyRuns(f));
    expect(queue.stats.verifyRuns).toBe(5);
    // Main is green: no BROKEN file.
    expect(sh(f.hub, 'ls-tree', '--name-only', 'main', 'src/')).not.toContain('a6');
    expect(unreachable(f, commits)).toEqual([]);
    // Branches unchanged.
    for (const [i, a] of agents.entries()) expect(sh(f.hub, 'rev-parse', a.branch)).toBe(commits[i]);
    const landedEvents = await store.log.read(f.runId, { kinds: ['merge.landed'] });
    const batches = [
      ...new Set(landedEvents.map((e) => JSON.stringify((e.data as { batch: number[] }).batch))),
    ];
    expect(batches).toEqual(['[1,2,3,4]', '[5]', '[7,8]']);
  });

  it('grows the batch window after green full batches, up to its maximum, and halves it after a red one', async () => {
    const f = await fixture('window');
    // The test holds the queue's lock while it enqueues: every request is queued, in order, before
    // the first candidate is taken (however slow the machine), so the batches are the window's.
    const lock = localIntegrationLock();
    const queue = f.queue({ batchSize: 2, maxBatchSize: 8, flakeRetries: 0, lock });
    const submitAll = async (names: string[], bad = '') => {
      const agents = await Promise.all(names.map((n) => f.agent(n)));
      for (const [i, a] of agents.entries())
        commitFiles(a.path, { [`src/${names[i]}.txt`]: names[i] === bad ? 'BROKEN\n' : 'ok\n' }, 'x');
      const queued = await lock.withLock(f.runId, 'integrate', async () => {
        const all = [];
        for (const [i, a] of agents.entries())
          all.push(await queue.enqueue({ agent: names[i] ?? '', branch: a.branch, note: names[i] ?? '' }));
        return all;
      });
      return Promise.all(
        queued.map((q) => (q.ok ? queue.outcome(q.mr) : Promise.reject(new Error(q.error)))),
      );
    };
    const batchesOf = async () =>
      [
        ...new Set(
          (await store.log.read(f.runId, { kinds: ['merge.landed'] })).map((e) =>
            JSON.stringify((e.data as { batch: number[] }).batch),
          ),
        ),
      ].map((b) => (JSON.parse(b) as number[]).length);
    // 2 + 4 + 8 + 8 = 22 good requests: the window doubles after each full green batch, then stays at 8.
    const names = Array.from({ length: 22 }, (_, i) => `w${i}`);
    const first = await submitAll(names);
    expect(first.every((r) => r.status === 'landed')).toBe(true);
    const sizes = await batchesOf();
    expect(sizes).toEqual([2, 4, 8, 8]);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(22);
    for (let i = 1; i < sizes.length - 1; i++) expect(sizes[i]).toBeGreaterThanOrEqual(sizes[i - 1] ?? 0);
    // A red batch of 8 (r0–r7) halves the window: no later candidate takes more than 4.
    const before = sizes.length;
    const second = await submitAll(
      Array.from({ length: 16 }, (_, i) => `r${i}`),
      'r3',
    );
    expect(second.filter((r) => r.status === 'rejected')).toHaveLength(1);
    const after = (await batchesOf()).slice(before);
    expect(Math.max(...after.slice(-1))).toBeLessThanOrEqual(4);
  });

  it('verifies a failing batch once more before bisecting it: a flaky check lands the batch', async () => {
    const f = await fixture('flake');
    // The integration lock is held until all four are queued, so they are taken as one batch.
    const lock = localIntegrationLock();
    let open = () => {};
    const held = lock.withLock(f.runId, 'integrate', () => new Promise<void>((resolve) => (open = resolve)));
    // Fails the first time it runs, passes afterwards (the count file lives outside the worktree).
    const queue = f.queue({
      lock,
      batchSize: 4,
      verify:
        'n=$(cat "$VERIFY_COUNT_FILE" 2>/dev/null | wc -l); echo run >> "$VERIFY_COUNT_FILE"; test "$n" -gt 0',
    });
    const names = ['f1', 'f2', 'f3', 'f4'];
    const agents = await Promise.all(names.map((n) => f.agent(n)));
    for (const [i, a] of agents.entries()) commitFiles(a.path, { [`src/${names[i]}.txt`]: 'ok\n' }, 'x');
    const queued = await Promise.all(
      agents.map((a, i) => queue.enqueue({ agent: names[i] ?? '', branch: a.branch, note: names[i] ?? '' })),
    );
    open();
    await held;
    const results = await Promise.all(
      queued.map((q) => (q.ok ? queue.outcome(q.mr) : Promise.reject(new Error(q.error)))),
    );
    expect(results.every((r) => r.status === 'landed')).toBe(true);
    // The first batch that failed was retried once and landed whole: no bisection, no rejection.
    expect(queue.stats.flakeRetries).toBe(1);
    expect(queue.stats.verifyRuns).toBe(verifyRuns(f));
    // The PATCH entries say it passed on a retry.
    const patches = f.posts.filter((p) => p.kind === 'PATCH');
    expect(patches.some((p) => p.detail?.includes('passed on a retry'))).toBe(true);
  });

  it('waits for approval, then lands; another process can approve through the log', async () => {
    const f = await fixture('approval');
    const queue = f.queue({ approval: 'manual', approvalPollMs: 50 });
    const erin = await f.agent('erin');
    const frank = await f.agent('frank');
    commitFiles(erin.path, { 'src/erin.txt': 'erin\n' }, 'erin');
    commitFiles(frank.path, { 'src/frank.txt': 'frank\n' }, 'frank');
    const mainBefore = sh(f.hub, 'rev-parse', 'main');
    const erinQueued = await queue.enqueue({ agent: 'erin', branch: erin.branch, note: 'erin' });
    expect(erinQueued.ok).toBe(true);
    await queue.idle();
    expect(queue.awaitingApproval()).toEqual([1]);
    expect(sh(f.hub, 'rev-parse', 'main')).toBe(mainBefore);
    const waiting = await store.log.read(f.runId, { kinds: ['merge.awaiting_approval'] });
    expect(waiting).toHaveLength(1);
    const outcome = queue.outcome(1);
    expect(queue.approve(1)).toBe(true);
    expect((await outcome).status).toBe('landed');
    // Cross-process path: the approval event in the log is picked up by the queue's poll.
    const frankQueued = await queue.enqueue({ agent: 'frank', branch: frank.branch, note: 'frank' });
    expect(frankQueued).toMatchObject({ ok: true, mr: 2 });
    const frankResult = queue.outcome(2);
    await queue.idle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(queue.awaitingApproval()).toEqual([2]);
    expect(await approveFromOutside(store.log, f.runId, 2)).toEqual({ ok: true });
    expect((await frankResult).status).toBe('landed');
    expect(await approveFromOutside(store.log, f.runId, 2)).toMatchObject({ ok: false });
    expect(await approveFromOutside(store.log, f.runId, 99)).toMatchObject({ ok: false });
    expect(f.mainLog()).toHaveLength(3);
  });

  it('reuses the MR id when the same branch tip is resubmitted after a restart', async () => {
    const f = await fixture('restart');
    const gina = await f.agent('gina');
    commitFiles(gina.path, { 'src/gina.txt': 'gina\n' }, 'gina');
    // A queue that "crashed": the request is logged but never processed (its lock is never free).
    const stuck = f.queue({
      lock: {
        withLock: (_run, purpose, task) => (purpose === 'ids' ? task() : new Promise(() => {})),
        close: async () => {},
      },
    });
    const first = await stuck.enqueue({ agent: 'gina', branch: gina.branch, note: 'gina' });
    expect(first).toMatchObject({ ok: true, mr: 1 });
    const fresh = f.queue();
    const again = await fresh.submit({ agent: 'gina', branch: gina.branch, note: 'gina' });
    expect(again).toMatchObject({ status: 'landed', mr: 1 });
    const hank = await f.agent('hank');
    commitFiles(hank.path, { 'src/hank.txt': 'hank\n' }, 'hank');
    expect(await fresh.submit({ agent: 'hank', branch: hank.branch, note: 'hank' })).toMatchObject({ mr: 2 });
  });

  it('logs a landing its process moved main for but died before logging, instead of rejecting it as empty', async () => {
    const f = await fixture('restart-landed');
    const ivan = await f.agent('ivan');
    commitFiles(ivan.path, { 'src/ivan.txt': 'ivan\n' }, 'ivan');
    const stuck = f.queue({
      lock: {
        withLock: (_run, purpose, task) => (purpose === 'ids' ? task() : new Promise(() => {})),
        close: async () => {},
      },
    });
    const first = await stuck.enqueue({ agent: 'ivan', branch: ivan.branch, note: 'ivan' });
    expect(first).toMatchObject({ ok: true, mr: 1 });
    // What the dead process did before its kill: main and refs/colony/landed/1 in one transaction.
    const mainBefore = sh(f.hub, 'rev-parse', 'main');
    const landedCommit = sh(
      f.hub,
      'commit-tree',
      '-p',
      mainBefore,
      '-m',
      'ivan',
      sh(f.hub, 'rev-parse', `${ivan.branch}^{tree}`),
    );
    sh(f.hub, 'update-ref', 'refs/heads/main', landedCommit);
    sh(f.hub, 'update-ref', 'refs/colony/landed/1', landedCommit);
    const again = await f.queue().submit({ agent: 'ivan', branch: ivan.branch, note: 'ivan' });
    expect(again).toMatchObject({ status: 'landed', mr: 1, commit: landedCommit, mainBefore });
    const landed = await store.log.read(f.runId, { kinds: ['merge.landed', 'merge.rejected'] });
    expect(landed.map((e) => [e.kind, e.data.mr])).toEqual([['merge.landed', 1]]);
    expect(sh(f.hub, 'rev-parse', 'main')).toBe(landedCommit);
  });

  it('puts back a main moved outside the queue before it lands the next request on it', async () => {
    const f = await fixture('moved-main');
    const queue = f.queue({ baseCommit: f.base });
    const jo = await f.agent('jo');
    commitFiles(jo.path, { 'src/jo.txt': 'jo\n' }, 'jo');
    // Something outside the queue (an uncontained agent, a person) moves main to its own commit.
    const forged = sh(
      f.hub,
      'commit-tree',
      '-p',
      f.base,
      '-m',
      'forged',
      sh(f.hub, 'rev-parse', `${jo.branch}^{tree}`),
    );
    sh(f.hub, 'update-ref', 'refs/heads/main', forged);
    const result = await queue.submit({ agent: 'jo', branch: jo.branch, note: 'adds jo' });
    expect(result).toMatchObject({ status: 'landed', mainBefore: f.base });
    expect(sh(f.hub, 'rev-parse', 'main^')).toBe(f.base);
    expect(sh(f.hub, 'rev-parse', `refs/colony/moved-outside/${forged}`)).toBe(forged);
    const warnings = await store.log.read(f.runId, { kinds: ['warning'] });
    expect(warnings.map((w) => w.data.message).join('\n')).toContain(
      `moved outside the integration queue (to ${forged})`,
    );
  });
});

/*
 * The verify checkout made ahead of the first request (IntegrationQueue.prepare): the worktree and
 * setup are ready before anyone asks, the first request then needs neither again, and a setup that
 * failed in the background is run again and reported by the first verify.
 */
const lines = (file: string): number =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '').length
    : 0;

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('a queue prepared before its first request', () => {
  it('has its verify checkout and setup done, and does not set up again for the first request', async () => {
    const f = await fixture('prepare');
    const setupCount = path.join(f.dir, 'setup-count');
    const queue = f.queue({
      setup: `echo setup >> "${setupCount}"`,
      env: { ...process.env, VERIFY_COUNT_FILE: f.countFile },
    });
    queue.prepare();
    await until(() => lines(setupCount) === 1, 'setup');
    expect(existsSync(path.join(f.dir, 'work', 'integration', 'check.sh'))).toBe(true);
    expect(lines(f.countFile)).toBe(0);

    const alice = await f.agent('alice');
    commitFiles(alice.path, { 'src/new.txt': 'new\n' }, 'alice adds a file');
    const result = await queue.submit({ agent: 'alice', branch: alice.branch, note: 'add a file' });
    expect(result.status).toBe('landed');
    expect(lines(setupCount)).toBe(1);
    expect(lines(f.countFile)).toBe(1);
  });

  it('runs a setup that failed while preparing again for the first request, and reports it', async () => {
    const f = await fixture('prepare-fails');
    const setupCount = path.join(f.dir, 'setup-count');
    const queue = f.queue({ setup: `echo setup >> "${setupCount}"; exit 3` });
    queue.prepare();
    await until(() => lines(setupCount) === 1, 'setup');
    const alice = await f.agent('alice');
    commitFiles(alice.path, { 'src/new.txt': 'new\n' }, 'alice adds a file');
    const result = await queue.submit({ agent: 'alice', branch: alice.branch, note: 'add a file' });
    expect(result.status).toBe('rejected');
    expect(JSON.stringify(result)).toContain('failed (exit 3)');
    expect(lines(setupCount)).toBe(2);
    expect(lines(f.countFile)).toBe(0);
  });
});
