/**
 * The model catalog: one provider per model id, built once; the run's `--base-url` belongs to the run's
 * own model only. Real HTTP against two fake provider servers: the run's endpoint (an OpenAI-compatible
 * local server) and the Anthropic endpoint from ANTHROPIC_BASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCatalog } from '../../src/model/catalog.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';

let local: FakeProvider;
let anthropic: FakeProvider;
beforeAll(async () => {
  local = await startFakeProvider({ policy: () => ({ text: 'from the local server' }) });
  anthropic = await startFakeProvider({ policy: () => ({ text: 'from anthropic' }) });
});
afterAll(async () => {
  await local.close();
  await anthropic.close();
});

const request = { system: 's', messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

describe('ModelCatalog', () => {
  it("sends a profile's Anthropic model to Anthropic, not to the run's --base-url", async () => {
    const catalog = new ModelCatalog({
      runModel: 'openai-chat:llama3.1:8b',
      baseUrl: local.url,
      env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: anthropic.url },
      maxRetries: 0,
    });
    const run = catalog.provider();
    const profile = catalog.provider('claude-sonnet-4-5');
    if (!run.ok || !profile.ok) throw new Error('providers expected');
    expect((await run.provider.call(request)).ok).toBe(true);
    expect((await profile.provider.call(request)).ok).toBe(true);
    expect(local.requests().map((r) => r.path)).toEqual(['/v1/chat/completions']);
    expect(anthropic.requests().map((r) => r.path)).toEqual(['/v1/messages']);
    // Built once per model id.
    expect(catalog.provider('claude-sonnet-4-5')).toBe(profile);
  });

  it('names what is missing: an unknown model, a key, a script', () => {
    const catalog = new ModelCatalog({ runModel: 'scripted', env: {} });
    const unknown = catalog.provider('no-such-model');
    expect(unknown.ok || unknown.error).toMatch(/unknown model 'no-such-model'/);
    const keyless = catalog.provider('claude-sonnet-4-5');
    expect(keyless.ok || keyless.error).toMatch(/set ANTHROPIC_API_KEY/);
    const scripted = catalog.provider();
    expect(scripted.ok || scripted.error).toMatch(/only runs bundled scenarios/);
  });
});
