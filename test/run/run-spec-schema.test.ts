/**
 * The stored run spec: written with its version by recordNewRun, read back validated by loadRunSpec
 * (what `colony resume` uses); a spec of an unknown version or with a wrong field is refused, naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import { RUN_SPEC_VERSION, storedRunSpec } from '../../src/run/run-spec-schema.js';
import type { Store } from '../../src/store/index.js';
import { loadRunSpec } from '../../src/topology/execute-run.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { peersSpec } from '../topology/peers-spec.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

const repo = { dir: '/tmp/no-such-repo', base: 'a'.repeat(40) };

async function recordRaw(runId: string, config: Record<string, unknown>): Promise<void> {
  await store.log.append({
    runId,
    agent: null,
    kind: 'run.started',
    data: { topology: 'peers', goal: 'g', repo: repo.dir, base: repo.base, model: 'scripted', config },
  });
  await store.log.flush();
}

describe('stored run spec', () => {
  it('reads back exactly what was recorded, with its version stored beside it', async () => {
    const spec = peersSpec(repo, {
      runId: testRunId('spec'),
      agents: 3,
      goal: 'fix it',
      verify: 'true',
      profiles: { fast: { base: 'explore', model: 'gpt-5-mini' } },
      customModels: [
        {
          id: 'local',
          protocol: 'openai-chat',
          name: 'llama',
          baseUrl: 'http://127.0.0.1:1/v1',
          contextWindow: 8000,
          maxOutput: 1000,
          prices: null,
        },
      ],
    });
    await recordNewRun(store, spec);
    const [started] = await store.log.read(spec.runId, { kinds: ['run.started'] });
    expect(started?.kind === 'run.started' && started.data.config.specVersion).toBe(RUN_SPEC_VERSION);
    expect(await loadRunSpec(store.log, spec.runId)).toEqual({ ok: true, spec });
  });

  it('refuses a spec of another version and a spec with a wrong field, naming it', async () => {
    const good = storedRunSpec(
      peersSpec(repo, { runId: testRunId('spec'), agents: 2, goal: 'g', verify: 'true' }),
    );
    const future = testRunId('spec');
    await recordRaw(future, { ...good, runId: future, specVersion: RUN_SPEC_VERSION + 1 });
    const a = await loadRunSpec(store.log, future);
    expect(a?.ok === false && a.error).toMatch(/run spec version 2; this Colony reads version 1/);

    const broken = testRunId('spec');
    await recordRaw(broken, { ...good, runId: broken, agents: 'many' });
    const b = await loadRunSpec(store.log, broken);
    expect(b?.ok === false && b.error).toMatch(/invalid at agents/);

    const extra = testRunId('spec');
    await recordRaw(extra, { ...good, runId: extra, mystery: true });
    const c = await loadRunSpec(store.log, extra);
    expect(c?.ok === false && c.error).toMatch(/invalid at spec|mystery/);

    expect(await loadRunSpec(store.log, testRunId('spec'))).toBeNull();
  });

  it('reads back every value the CLI accepts: --accept-rounds 0', async () => {
    const zero = testRunId('spec');
    const spec = {
      ...peersSpec(repo, { runId: zero, agents: 1, goal: 'g', verify: 'true' }),
      acceptRounds: 0,
    };
    await recordRaw(zero, storedRunSpec(spec));
    const read = await loadRunSpec(store.log, zero);
    expect(read?.ok && read.spec.acceptRounds).toBe(0);
  });
});
