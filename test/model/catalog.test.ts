/**
 * The model catalog: one provider per model id, built once; the run's `--base-url` belongs to the run's
 * own model only. Real HTTP against two fake provider servers: the run's endpoint (an OpenAI-compatible
 * local server) and the Anthropic endpoint from ANTHROPIC_BASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCatalog } from '../../src/model/catalog.js';
import { foreignKeyHost, resolveModel } from '../../src/model/models.js';
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

describe('ModelCatalog.endpoint: where calls go and which key they carry', () => {
  it('names the base URL the provider will call and the key variable only when a key is sent', () => {
    const catalog = new ModelCatalog({
      runModel: 'openai-chat:llama3',
      baseUrl: 'http://localhost:11434/v1',
      env: { OPENAI_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: 'https://gateway.example' },
    });
    expect(catalog.endpoint()).toEqual({
      ok: true,
      endpoint: { model: 'openai-chat:llama3', url: 'http://localhost:11434/v1', keyEnv: 'OPENAI_API_KEY' },
    });
    // No ANTHROPIC_API_KEY set: the gateway from the environment gets no key.
    expect(catalog.endpoint('claude-haiku-4-5')).toEqual({
      ok: true,
      endpoint: { model: 'claude-haiku-4-5', url: 'https://gateway.example', keyEnv: undefined },
    });
    expect(catalog.endpoint('kimi-k2.5')).toMatchObject({
      endpoint: { url: 'https://api.moonshot.ai/v1', keyEnv: undefined },
    });
    expect(catalog.endpoint('scripted')).toMatchObject({ endpoint: { url: undefined, keyEnv: undefined } });
    expect(catalog.endpoint('nope').ok).toBe(false);
  });
});

describe('foreignKeyHost', () => {
  const model = (id: string) => {
    const r = resolveModel(id);
    if (!r.ok) throw new Error(r.error);
    return r.model;
  };

  it("lets a vendor's key go to that vendor's hosts over https only", () => {
    expect(foreignKeyHost(model('gpt-5'), 'https://api.openai.com/v1')).toBeNull();
    expect(foreignKeyHost(model('claude-opus-4-1'), 'https://api.anthropic.com')).toBeNull();
    expect(foreignKeyHost(model('kimi-k2.5'), 'https://api.moonshot.cn/v1')).toBeNull();
    expect(foreignKeyHost(model('gpt-5'), 'https://api.openai.com.evil.example/v1')).toEqual({
      keyEnv: 'OPENAI_API_KEY',
      hosts: ['api.openai.com'],
    });
    expect(foreignKeyHost(model('gpt-5'), 'http://api.openai.com/v1')).not.toBeNull();
    expect(foreignKeyHost(model('claude-haiku-4-5'), 'https://api.openai.com/v1')?.keyEnv).toBe(
      'ANTHROPIC_API_KEY',
    );
    expect(foreignKeyHost(model('deepseek-chat'), 'not a url')?.keyEnv).toBe('DEEPSEEK_API_KEY');
  });

  it('has nothing to say about a key of your own naming, or no key at all', () => {
    const own = { ...model('openai-chat:llama3'), apiKeyEnv: 'OLLAMA_API_KEY' };
    expect(foreignKeyHost(own, 'http://localhost:11434/v1')).toBeNull();
    expect(foreignKeyHost(model('scripted'), 'http://anywhere')).toBeNull();
    // Without its own apiKeyEnv, an openai-chat model carries OPENAI_API_KEY.
    expect(foreignKeyHost(model('openai-chat:llama3'), 'http://localhost:11434/v1')?.keyEnv).toBe(
      'OPENAI_API_KEY',
    );
  });
});
