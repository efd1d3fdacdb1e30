/**
 * What `sync` reports as landed since the agent's last sync, read incrementally (only the landings
 * after that sync, and the run's requests once, then only new ones): the same items, with their
 * authors and notes, whenever the requests were made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import { landedSinceLastSync } from '../../../src/workspace/integration/sync.js';
import { openTestStore, testRunId } from '../../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

const commit = (n: number) => String(n).padStart(40, '0');

describe('landedSinceLastSync', () => {
  it('lists what landed after the last sync, with each request’s author and note, as requests keep coming', async () => {
    const runId = testRunId('landed-since');
    const append = (agent: string | null, kind: string, data: Record<string, unknown>) =>
      store.log.append({ runId, agent, kind, data } as Parameters<Store['log']['append']>[0]);
    const request = (agent: string, mr: number) =>
      append(agent, 'merge.requested', {
        mr,
        note: `fix ${mr} by ${agent}`,
        branch: `agent/${agent}`,
        commit: commit(mr),
      });
    const land = (agent: string, mr: number) =>
      append(agent, 'merge.landed', {
        mr,
        batch: [mr],
        files: [`f${mr}`],
        commit: commit(100 + mr),
        mainBefore: commit(0),
      });
    const synced = (agent: string) =>
      append(agent, 'workspace.synced', {
        branch: `agent/${agent}`,
        main: commit(0),
        landedSince: 0,
        conflicts: [],
      });

    await request('peer-1', 1);
    await request('peer-2', 2);
    await land('peer-1', 1);
    // Before its first sync, everything that landed.
    expect(await landedSinceLastSync(store.log, runId, 'peer-3')).toEqual([
      { mr: 1, commit: commit(101), agent: 'peer-1', note: 'fix 1 by peer-1' },
    ]);
    await synced('peer-3');
    expect(await landedSinceLastSync(store.log, runId, 'peer-3')).toEqual([]);
    // A request made after the index was first read, and an older one, land.
    await request('peer-4', 3);
    await land('peer-4', 3);
    await land('peer-2', 2);
    expect(await landedSinceLastSync(store.log, runId, 'peer-3')).toEqual([
      { mr: 3, commit: commit(103), agent: 'peer-4', note: 'fix 3 by peer-4' },
      { mr: 2, commit: commit(102), agent: 'peer-2', note: 'fix 2 by peer-2' },
    ]);
    // Another agent that never synced sees all three.
    expect((await landedSinceLastSync(store.log, runId, 'peer-5')).map((item) => item.mr)).toEqual([1, 3, 2]);
    // Many at once while requests keep landing: each sees every landing with its note.
    await request('peer-6', 4);
    await land('peer-6', 4);
    const all = await Promise.all(
      Array.from({ length: 40 }, (_, i) => landedSinceLastSync(store.log, runId, `late-${i}`)),
    );
    for (const items of all)
      expect(items.map((item) => `${item.mr} ${item.note}`)).toEqual([
        '1 fix 1 by peer-1',
        '3 fix 3 by peer-4',
        '2 fix 2 by peer-2',
        '4 fix 4 by peer-6',
      ]);
  });
});
