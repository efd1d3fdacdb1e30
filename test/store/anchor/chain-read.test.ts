import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../../../src/core/events.js';
import { firstInconsistency, walkChain } from '../../../src/store/anchor/chain-read.js';
import type { Store } from '../../../src/store/index.js';
import { openTestStore, superuserClient, testRunId } from '../../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

const warning = (runId: string, agent: string | null, message: string): EventInput<'warning'> => ({
  runId,
  agent,
  kind: 'warning',
  data: { message },
});

describe('the chain recomputed outside the database', () => {
  it('gives every stored hash, whatever the text (quotes, control characters, non-ASCII, nesting)', async () => {
    const runId = testRunId('walk');
    const odd = [
      'plain',
      'quote " backslash \\ slash /',
      'tab\tnewline\nreturn\r bell\u0007 unit\u001f del\u007f',
      'ünïcødé — 漢字 🐝 \u2028 line separator',
      '',
    ];
    for (const [i, text] of odd.entries())
      await store.log.append(warning(runId, i % 2 ? `agent "${text}"` : null, text));
    await store.log.append({
      runId,
      agent: 'peer-1',
      kind: 'model.error',
      data: { message: 'x', nested: { list: [1, 2.5, -0, 1e21, null, true], 'key\u0001': 'v' } },
    } as unknown as EventInput);
    await store.log.flush();
    const chain = await walkChain(store.pool, runId);
    expect(chain.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(chain.filter((e) => e.hash !== e.storedHash)).toEqual([]);
    expect(firstInconsistency(chain)).toBeNull();
    expect((await walkChain(store.pool, runId, 4)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('names a row whose stored hash was made to match by a superuser (as a replaced event_hash would)', async () => {
    const runId = testRunId('walk-forged');
    for (const text of ['a', 'b', 'c', 'd']) await store.log.append(warning(runId, null, text));
    await store.log.flush();
    const su = await superuserClient(store);
    try {
      // A stored hash that is not the hash of the row's content, linked on by the next row.
      await su.query('BEGIN');
      await su.query('SET LOCAL session_replication_role = replica');
      await su.query(`UPDATE colony.events SET hash = repeat('e', 64) WHERE run_id = $1 AND seq = 3`, [
        runId,
      ]);
      await su.query(`UPDATE colony.events SET prev_hash = repeat('e', 64) WHERE run_id = $1 AND seq = 4`, [
        runId,
      ]);
      await su.query('COMMIT');
    } finally {
      await su.end();
    }
    expect(firstInconsistency(await walkChain(store.pool, runId))).toMatchObject({ seq: 3, kind: 'warning' });
  });
});
