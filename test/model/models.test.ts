import { describe, expect, it } from 'vitest';
import { apiKeyFor, baseUrlFor } from '../../src/model/index.js';
import { KNOWN_MODELS, knownModelIds, resolveModel } from '../../src/model/models.js';
import type { ModelRecord } from '../../src/model/types.js';

describe('resolveModel', () => {
  it('resolves a known id', () => {
    const r = resolveModel('claude-sonnet-4-5');
    expect(r.ok && r.model).toMatchObject({
      protocol: 'anthropic',
      name: 'claude-sonnet-4-5',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
    });
    expect(r.ok && r.model.prices?.cacheWrite).toBeGreaterThan(0);
  });
  it('knows the vendor endpoints of Moonshot and DeepSeek', () => {
    const kimi = resolveModel('kimi-k2.5');
    expect(kimi.ok && kimi.model).toMatchObject({
      protocol: 'openai-chat',
      baseUrl: 'https://api.moonshot.ai/v1',
    });
    const ds = resolveModel('deepseek-reasoner');
    expect(ds.ok && ds.model).toMatchObject({
      apiKeyEnv: 'DEEPSEEK_API_KEY',
      baseUrl: 'https://api.deepseek.com',
    });
  });
  it('splits <protocol>:<name> at the first colon, unpriced with a default context window', () => {
    const r = resolveModel('openai-chat:llama3:8b', { baseUrl: 'http://localhost:11434/v1' });
    expect(r).toEqual({
      ok: true,
      model: {
        id: 'openai-chat:llama3:8b',
        protocol: 'openai-chat',
        name: 'llama3:8b',
        baseUrl: 'http://localhost:11434/v1',
        contextWindow: 128_000,
        maxOutput: 8_192,
        prices: null,
      },
    });
  });
  it('keeps the known prices for a known model name on another protocol of the same vendor', () => {
    const r = resolveModel('openai-chat:gpt-5');
    expect(r.ok && r.model).toMatchObject({
      protocol: 'openai-chat',
      name: 'gpt-5',
      prices: { input: 1.25 },
    });
  });
  it('prefers a custom model from config, so prices can be overridden', () => {
    const custom: ModelRecord = {
      ...KNOWN_MODELS[0]!,
      prices: { input: 9, cachedInput: 9, cacheWrite: 9, output: 9 },
    };
    const r = resolveModel(custom.id, { custom: [custom] });
    expect(r.ok && r.model.prices?.input).toBe(9);
    const local: ModelRecord = {
      id: 'local',
      protocol: 'openai-chat',
      name: 'qwen',
      contextWindow: 32_000,
      maxOutput: 4096,
      prices: null,
    };
    expect(resolveModel('local', { custom: [local] })).toEqual({ ok: true, model: local });
  });
  it('lists the known ids for an unknown model, and rejects unknown protocols', () => {
    const r = resolveModel('gpt-9000');
    expect(r.ok).toBe(false);
    if (!r.ok) for (const id of knownModelIds()) expect(r.error).toContain(id);
    const p = resolveModel('bogus:model');
    expect(!p.ok && p.error).toContain("unknown protocol 'bogus'");
    expect(resolveModel('anthropic:').ok).toBe(false);
  });
  it('has a free scripted model', () => {
    const r = resolveModel('scripted');
    expect(r.ok && r.model).toMatchObject({
      protocol: 'scripted',
      prices: { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 },
    });
  });
});

describe('apiKeyFor / baseUrlFor', () => {
  const model = (id: string, baseUrl?: string): ModelRecord => {
    const r = resolveModel(id, baseUrl ? { baseUrl } : {});
    if (!r.ok) throw new Error(r.error);
    return r.model;
  };
  it('reads the conventional variable and names it when missing', () => {
    expect(apiKeyFor(model('gpt-5'), { OPENAI_API_KEY: 'sk-1' })).toEqual({ ok: true, key: 'sk-1' });
    const missing = apiKeyFor(model('claude-haiku-4-5'), {});
    expect(!missing.ok && missing.error).toContain('ANTHROPIC_API_KEY');
    expect(!apiKeyFor(model('kimi-k2.5'), {}).ok && apiKeyFor(model('kimi-k2.5'), {})).toMatchObject({
      error: expect.stringContaining('MOONSHOT_API_KEY'),
    });
    expect(apiKeyFor(model('deepseek-chat'), { DEEPSEEK_API_KEY: 'd' })).toEqual({ ok: true, key: 'd' });
  });
  it('allows no key for a custom local endpoint, and none for scripted', () => {
    expect(apiKeyFor(model('openai-chat:llama3:8b', 'http://localhost:11434/v1'), {})).toEqual({
      ok: true,
      key: undefined,
    });
    expect(apiKeyFor(model('openai-chat:qwen'), { OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1' })).toEqual({
      ok: true,
      key: undefined,
    });
    expect(apiKeyFor(model('scripted'), {})).toEqual({ ok: true, key: undefined });
  });
  it('takes the base URL from the record, then the environment, then the vendor default', () => {
    expect(baseUrlFor(model('gpt-4.1'), {})).toBe('https://api.openai.com/v1');
    expect(baseUrlFor(model('gpt-4.1'), { OPENAI_BASE_URL: 'http://proxy/v1' })).toBe('http://proxy/v1');
    expect(baseUrlFor(model('claude-opus-4-1'), { ANTHROPIC_BASE_URL: 'http://a' })).toBe('http://a');
    expect(baseUrlFor(model('kimi-k2.5'), { OPENAI_BASE_URL: 'http://proxy/v1' })).toBe(
      'https://api.moonshot.ai/v1',
    );
  });
});
