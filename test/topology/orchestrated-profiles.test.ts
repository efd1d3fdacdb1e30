/**
 * Profiles with their own model: a subagent whose profile (from config, through prepareRun) names
 * another model sends its requests to that model, while the lead uses the run's model. Real HTTP (the
 * fake provider sees the wire `model` field), real git and Postgres. Also: a profile naming an
 * unknown model is a usage error before the run starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { prepareRun, recordNewRun } from '../../src/cli/new-run.js';
import type { StoredEvent } from '../../src/core/events.js';
import { orchestratedPolicy } from '../../src/demo/orchestrated-policy.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
let fake: FakeProvider;
const env = { ...process.env, OPENAI_API_KEY: 'k' };

beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy: orchestratedPolicy({ profile: 'second-opinion' }) });
});
afterAll(async () => {
  await fake.close();
  await store.close();
});

const model = (name: string) => ({
  id: `openai-chat:${name}`,
  protocol: 'openai-chat' as const,
  name,
  baseUrl: '',
  contextWindow: 128_000,
  maxOutput: 8_192,
  prices: null,
});

function config(profileModel: string) {
  return {
    ...DEFAULT_CONFIG,
    model: 'openai-chat:fake-lead',
    models: [model('fake-lead'), model('fake-review')].map((m) => ({ ...m, baseUrl: fake.url })),
    profiles: { 'second-opinion': { base: 'explore' as const, model: profileModel, maxSteps: 5 } },
  };
}

describe('orchestrated profiles from config', () => {
  it("sends a subagent's requests to its profile's model", async () => {
    const repo = createUserRepo({ 'README.md': '# r\n' }, 'colony-profiles-');
    const prepared = await prepareRun(
      {
        repo: repo.dir,
        goal: 'Inspect. plan: a:2',
        config: config('openai-chat:fake-review'),
        topology: 'orchestrated',
      },
      env,
    );
    expect(prepared.spec.profiles?.['second-opinion']).toMatchObject({ model: 'openai-chat:fake-review' });
    await recordNewRun(store, prepared.spec);
    const result = await executeRun({
      store,
      spec: prepared.spec,
      provider: prepared.provider,
      env,
      signal: new AbortController().signal,
      resumed: false,
    });
    if (!result.ok) throw new Error(result.error);
    expect(result.summary.status).toBe('succeeded');
    const wire = fake.requests().map((r) => ({
      model: (r.body as { model?: string }).model,
      subagent: /You are subagent "([^"]+)"/.exec(r.request?.system ?? '')?.[1] ?? 'lead',
    }));
    expect(wire.filter((r) => r.subagent === 'a').map((r) => r.model)).toEqual([
      'fake-review',
      'fake-review',
    ]);
    expect(new Set(wire.filter((r) => r.subagent === 'lead').map((r) => r.model))).toEqual(
      new Set(['fake-lead']),
    );
    const events = await store.log.read(prepared.spec.runId);
    const created = events.find((e) => e.kind === 'subagent.created') as StoredEvent<'subagent.created'>;
    expect(created.data).toMatchObject({
      profile: 'second-opinion',
      model: 'openai-chat:fake-review',
      maxSteps: 5,
    });
  });

  it('rejects a profile whose model is unknown before the run starts', async () => {
    const repo = createUserRepo({ 'README.md': '# r\n' }, 'colony-profiles-');
    const attempt = prepareRun(
      { repo: repo.dir, goal: 'g', config: config('nope-model'), topology: 'orchestrated' },
      env,
    );
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(/profile "second-opinion"/);
  });
});
