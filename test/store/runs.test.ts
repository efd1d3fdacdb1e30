import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

describe('runs', () => {
  it('creates, updates status and reads runs', async () => {
    const runId = testRunId('run');
    const created = await store.runs.createRun({
      runId,
      topology: 'solo',
      goal: 'fix tests',
      repo: '/tmp/repo',
      pid: process.pid,
      host: 'here',
      config: { model: 'scripted' },
    });
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    expect(created.value).toMatchObject({
      runId,
      status: 'running',
      finishedAt: null,
      config: { model: 'scripted' },
    });

    const dup = await store.runs.createRun({ runId, topology: 'solo', goal: 'g', repo: 'r' });
    expect(dup).toEqual({ ok: false, error: `create run ${runId}: run already exists` });

    const finished = await store.runs.setRunStatus(runId, 'succeeded');
    expect(finished.ok && finished.value.status).toBe('succeeded');
    expect(finished.ok && finished.value.finishedAt).toMatch(/Z$/);

    const got = await store.runs.getRun(runId);
    expect(got?.status).toBe('succeeded');
    expect(await store.runs.getRun('no-such-run')).toBeNull();
    expect(await store.runs.setRunStatus('no-such-run', 'failed')).toEqual({
      ok: false,
      error: 'set status of run no-such-run: no such run',
    });

    const owner = await store.runs.setRunOwner(runId, 4242, 'other');
    expect(owner.ok && owner.value.pid).toBe(4242);
  });

  it('lists runs newest first', async () => {
    const a = testRunId('list-a');
    const b = testRunId('list-b');
    await store.runs.createRun({ runId: a, topology: 'solo', goal: 'g', repo: 'r' });
    await store.runs.createRun({ runId: b, topology: 'solo', goal: 'g', repo: 'r' });
    const ids = (await store.runs.listRuns(1000)).map((r) => r.runId);
    expect(ids.indexOf(b)).toBeLessThan(ids.indexOf(a));
    expect(await store.runs.listRuns(1)).toHaveLength(1);
  });
});
