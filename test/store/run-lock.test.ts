import { describe, expect, it } from 'vitest';
import { openTestStore, testRunId } from '../helpers/db.js';
import { spawnStoreChild } from './child-process.js';

describe('run lock', () => {
  it('is exclusive between stores and free again after release', async () => {
    const [a, b] = await Promise.all([openTestStore(), openTestStore()]);
    try {
      const runId = testRunId('lock');
      const held = await a.tryLockRun(runId);
      expect(held.ok).toBe(true);
      expect((await b.tryLockRun(runId)).ok).toBe(false);
      expect((await b.tryLockRun(testRunId('other'))).ok).toBe(true);
      if (held.ok) await held.release();
      const again = await b.tryLockRun(runId);
      expect(again.ok).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('vanishes when the holding process is killed', async () => {
    const store = await openTestStore();
    const child = spawnStoreChild({});
    try {
      const runId = testRunId('killed');
      await child.send('open');
      expect(await child.send(`lock ${runId}`)).toEqual({ locked: true });
      expect((await store.tryLockRun(runId)).ok).toBe(false);
      child.proc.kill('SIGKILL');
      await child.exited;
      let ok = false;
      for (let i = 0; i < 50 && !ok; i++) {
        const r = await store.tryLockRun(runId);
        ok = r.ok;
        if (r.ok) await r.release();
        else await new Promise((res) => setTimeout(res, 100));
      }
      expect(ok).toBe(true);
    } finally {
      child.proc.kill('SIGKILL');
      await store.close();
    }
  });
});
