/**
 * A run's phases in a process that lost the run's lock (src/run/durable.ts fencedPhases): a phase that
 * ends after the loss never settles, so DBOS records no outcome another process would replay; before
 * the loss, phases pass their results and errors through.
 */
import { describe, expect, it } from 'vitest';
import { fencedPhases, type RunPhases } from '../../src/run/durable.js';

const settledWithin = async <T>(
  p: Promise<T>,
  turns = 20,
): Promise<'pending' | { value: T } | { error: unknown }> => {
  let state: 'pending' | { value: T } | { error: unknown } = 'pending';
  p.then(
    (value) => {
      state = { value };
    },
    (error: unknown) => {
      state = { error };
    },
  );
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe('fenced phases', () => {
  it('pass results and errors through while the run is owned', async () => {
    let lose: (why: string) => void = () => {};
    const lost = new Promise<string>((resolve) => {
      lose = resolve;
    });
    const phases: RunPhases<number> = {
      prepare: async () => {},
      work: async () => {
        throw new Error('the work failed');
      },
      finalize: async () => 42,
    };
    const fenced = fencedPhases(phases, lost);
    expect(await settledWithin(fenced.prepare())).toEqual({ value: undefined });
    expect(await settledWithin(fenced.work())).toEqual({ error: new Error('the work failed') });
    expect(await settledWithin(fenced.finalize())).toEqual({ value: 42 });
    lose('gone');
  });

  it('never settle a phase that ends after the lock was lost, with a result or an error', async () => {
    let lose: (why: string) => void = () => {};
    const lost = new Promise<string>((resolve) => {
      lose = resolve;
    });
    let endWork: () => void = () => {};
    let failFinalize: () => void = () => {};
    const phases: RunPhases<number> = {
      prepare: async () => {},
      // The agents stop as the database goes away: work ends "normally" after the loss.
      work: () =>
        new Promise<void>((resolve) => {
          endWork = resolve;
        }),
      finalize: () =>
        new Promise<number>((_, reject) => {
          failFinalize = () => reject(new Error('Cannot use a pool after calling end on the pool'));
        }),
    };
    const fenced = fencedPhases(phases, lost);
    const work = fenced.work();
    const finalize = fenced.finalize();
    lose('the connection holding the lock failed');
    await new Promise((resolve) => setImmediate(resolve));
    endWork();
    failFinalize();
    expect(await settledWithin(work)).toBe('pending');
    expect(await settledWithin(finalize)).toBe('pending');
  });
});
