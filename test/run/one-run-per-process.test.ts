/**
 * One process executes one run at a time (DBOS is one per process): a second executeRun while the
 * first is going returns a clear error at once and leaves its run as it was (nothing appended, so it
 * can be executed later); once the first has ended, the second runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import { createScriptedProvider } from '../../src/model/providers/scripted.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

function soloSpec(label: string): RunSpec {
  const repo = createUserRepo({ 'README.md': '# one run\n' }, 'colony-one-run-');
  return {
    runId: testRunId(label),
    topology: 'solo',
    repo: repo.dir,
    goal: 'Answer.',
    baseRef: 'HEAD',
    baseCommit: repo.base,
    model: 'scripted',
    maxSteps: 3,
    profile: 'coder',
    stream: false,
    customModels: [],
    modelTimeoutMs: 30_000,
    maxRetries: 0,
    bashTimeoutS: 30,
    sandbox: { enabled: false, network: false, passEnv: [] },
  };
}

const execute = (spec: RunSpec, latencyMs: number) =>
  executeRun({
    store,
    spec,
    provider: createScriptedProvider([{ text: 'done' }], { latencyMs }),
    env: { PATH: process.env.PATH },
    signal: new AbortController().signal,
    resumed: false,
  });

describe('one run per process', () => {
  it('refuses a second run while one executes, and runs it after', async () => {
    const first = soloSpec('first');
    const second = soloSpec('second');
    await recordNewRun(store, first);
    await recordNewRun(store, second);
    const before = (await store.log.read(second.runId)).length;

    const going = execute(first, 1_500);
    const refused = await execute(second, 0);
    expect(refused).toEqual({
      ok: false,
      error: expect.stringContaining(`this process is already executing run ${first.runId}`),
    });
    expect((await store.log.read(second.runId)).length).toBe(before);

    const done = await going;
    expect(done.ok && done.summary.status).toBe('succeeded');
    const later = await execute(second, 0);
    expect(later.ok && later.summary.status).toBe('succeeded');
  }, 120_000);
});
