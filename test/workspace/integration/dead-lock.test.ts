/**
 * The integration worktree's index lock left by a killed owner's orphaned git after the resumed owner
 * started (soak seed 46: every merge request of the run was rejected "could not check out …:
 * Unable to create '…/worktrees/integration/index.lock': File exists"). The queue waits out a lock
 * that may be live and removes a dead one (git/stale-locks.ts), and the request lands.
 */
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import { openTestStore } from '../../helpers/db.js';
import { commitFiles, type Fixture, makeFixture } from './fixture.js';

let store: Store;
let f: Fixture | null = null;

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  f?.cleanup();
  await store.close();
});

describe('a dead lock on the integration worktree', () => {
  it('is removed and the next request lands', async () => {
    f = await makeFixture(store, 'dead-lock');
    const queue = f.queue({ batchSize: 1 });
    const alice = await f.agent('alice');
    commitFiles(alice.path, { 'src/a.txt': 'a\n' }, 'alice');
    expect((await queue.submit({ agent: 'alice', branch: alice.branch, note: 'a' })).status).toBe('landed');

    // Left by a process that died holding it, a minute ago.
    const lock = path.join(f.hub, 'worktrees', 'integration', 'index.lock');
    expect(existsSync(path.dirname(lock))).toBe(true);
    writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);

    const bob = await f.agent('bob');
    commitFiles(bob.path, { 'src/b.txt': 'b\n' }, 'bob');
    const second = await queue.submit({ agent: 'bob', branch: bob.branch, note: 'b' });
    expect(second.status, JSON.stringify(second)).toBe('landed');
    expect(existsSync(lock)).toBe(false);
  });
});
