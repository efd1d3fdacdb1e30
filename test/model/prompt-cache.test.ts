import { describe, expect, it } from 'vitest';
import { createScriptedProvider } from '../../src/model/index.js';
import { createPromptCache } from '../../src/model/providers/prompt-cache.js';
import type { ModelRequest } from '../../src/model/types.js';

const shared = `${'You are one of several identical peers. '.repeat(200)}\n`;
const request = (system: string, messages: ModelRequest['messages'] = []): ModelRequest => ({
  system,
  messages,
  tools: [{ name: 'ls', description: 'list', parameters: { type: 'object', properties: {} } }],
});

describe('simulated prompt cache', () => {
  it('serves the shared prefix of peers whose prompts differ only at the end', () => {
    const cache = createPromptCache();
    expect(cache.cachedTokens(request(`${shared}Your peer ID is peer-1.`))).toBe(0);
    const second = cache.cachedTokens(request(`${shared}Your peer ID is peer-2.`));
    expect(second).toBeGreaterThanOrEqual(1024);
    expect(second).toBeLessThanOrEqual(shared.length / 4);
    expect(second % 128).toBe(0);
  });

  it('caches a growing conversation up to its previous turn, and nothing below 1,024 tokens', () => {
    const cache = createPromptCache();
    const system = `${shared}Your peer ID is peer-1.`;
    const first = [{ role: 'user' as const, content: 'goal' }];
    cache.cachedTokens(request(system, first));
    const grown = [...first, { role: 'assistant' as const, content: 'ok', toolCalls: [] }];
    expect(cache.cachedTokens(request(system, grown))).toBeGreaterThan(
      cache.cachedTokens(request('x'.repeat(100))),
    );
    expect(createPromptCache().cachedTokens(request('short'))).toBe(0);
    const small = createPromptCache();
    small.cachedTokens(request('short system'));
    expect(small.cachedTokens(request('short system'))).toBe(0);
  });

  it('is reported as cached input by a scripted provider that simulates it', async () => {
    const provider = createScriptedProvider(() => ({ text: 'done' }), { promptCache: true });
    const system = `${shared}Your peer ID is peer-1.`;
    const a = await provider.call(request(system, [{ role: 'user', content: 'goal' }]));
    const b = await provider.call(request(system, [{ role: 'user', content: 'goal' }]));
    if (!a.ok || !b.ok) throw new Error('call failed');
    expect(a.turn.usage.cachedInput ?? 0).toBe(0);
    expect(b.turn.usage.cachedInput).toBeGreaterThanOrEqual(1024);
    expect(b.turn.usage.input + (b.turn.usage.cachedInput ?? 0)).toBe(a.turn.usage.input);
  });
});
