import { describe, expect, it } from 'vitest';
import { err, ok, type Result } from '../../src/lang/result.js';
import { GroupCommit, KeyedGroupCommit } from '../../src/store/group-commit.js';

/** A commit function that records its batches and answers each item with its double. */
function recorder(delayMs = 5) {
  const batches: number[][] = [];
  const commit = async (items: number[]): Promise<Result<number, Error>[]> => {
    batches.push([...items]);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return items.map((n) => (n < 0 ? err(new Error(`negative ${n}`)) : ok(n * 2)));
  };
  return { batches, commit };
}

describe('group commit', () => {
  it('commits what is added in one turn together, and what arrives during a commit in the next', async () => {
    const { batches, commit } = recorder();
    const group = new GroupCommit({ commit });
    const first = [1, 2, 3].map((n) => group.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    // The first commit is in flight now: these wait for it and go together.
    const second = [4, 5].map((n) => group.add(n));
    expect(await Promise.all([...first, ...second])).toEqual([2, 4, 6, 8, 10]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('settles each item by its own result, rejects all when the commit throws, and bounds the batch', async () => {
    const { batches, commit } = recorder();
    const group = new GroupCommit({ commit, maxBatch: 2 });
    const settled = await Promise.allSettled([1, -2, 3].map((n) => group.add(n)));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : s.reason.message))).toEqual([
      2,
      'negative -2',
      6,
    ]);
    expect(batches).toEqual([[1, -2], [3]]);

    const failing = new GroupCommit<number, number>({
      commit: async () => {
        throw new Error('connection lost');
      },
    });
    const lost = await Promise.allSettled([1, 2].map((n) => failing.add(n)));
    expect(lost.map((s) => s.status === 'rejected' && s.reason.message)).toEqual([
      'connection lost',
      'connection lost',
    ]);
    const short = new GroupCommit<number, number>({ commit: async () => [ok(1)] });
    await expect(Promise.all([short.add(1), short.add(2)])).rejects.toThrow(/fewer results/);
  });

  it('never mixes keys in one batch, keeps order within a key, and idle waits for the last commit', async () => {
    const batches: Array<[string, number[]]> = [];
    const keyed = new KeyedGroupCommit<number, string>(async (key, items) => {
      batches.push([key, items]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return items.map((n) => `${key}:${n}`);
    });
    const out = await Promise.all([
      keyed.add('a', 1),
      keyed.add('b', 2),
      keyed.add('a', 3),
      keyed.add('b', 4),
    ]);
    expect(out).toEqual(['a:1', 'b:2', 'a:3', 'b:4']);
    expect(batches).toEqual([
      ['a', [1, 3]],
      ['b', [2, 4]],
    ]);

    const { commit } = recorder(20);
    const group = new GroupCommit({ commit });
    let done = false;
    void group.add(1).then(() => {
      done = true;
    });
    await group.idle();
    expect(done).toBe(true);
  });
});
