import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../src/model/index.js';
import type { ModelRecord, ModelRequest } from '../../src/model/types.js';
import { type FakeProvider, startFakeProvider } from './server.js';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ policy: () => ({ text: 'hi' }), requireKey: 'good-key' });
});
afterAll(async () => {
  await fake.close();
});

const model = (protocol: ModelRecord['protocol']): ModelRecord => ({
  id: protocol,
  protocol,
  name: 'm',
  contextWindow: 1000,
  maxOutput: 10,
  prices: null,
});
const req: ModelRequest = { system: '', messages: [{ role: 'user', content: 'hello' }], tools: [] };

describe('fake provider server', () => {
  it('checks the API key when asked to, per protocol header', async () => {
    for (const protocol of ['openai-chat', 'anthropic'] as const) {
      const good = await createProvider(model(protocol), { baseUrl: fake.url, apiKey: 'good-key' }).call(req);
      expect(good.ok).toBe(true);
      const bad = await createProvider(model(protocol), { baseUrl: fake.url, apiKey: 'bad' }).call(req);
      expect(!bad.ok && bad.error.kind).toBe('auth');
    }
  });

  it('injects failures per path, and honours a Retry-After given as an HTTP date', async () => {
    fake.setFailures({
      byPath: { '/v1/messages': [{ status: 529, retryAfterS: 1, retryAfterAsDate: true }] },
    });
    const chat = await createProvider(model('openai-chat'), { baseUrl: fake.url, apiKey: 'good-key' }).call(
      req,
    );
    expect(chat.ok).toBe(true);
    const delays: number[] = [];
    const msg = await createProvider(model('anthropic'), {
      baseUrl: fake.url,
      apiKey: 'good-key',
      baseDelayMs: 1,
    }).call(req, {
      onRetry: (r) => delays.push(r.delayMs),
    });
    expect(msg.ok).toBe(true);
    expect(delays).toHaveLength(1);
    // An HTTP date has one-second resolution: the wait is up to ~1 s, never the 1 ms backoff.
    expect(delays[0]).toBeGreaterThan(1);
    expect(delays[0]).toBeLessThanOrEqual(2000);
    fake.setFailures(undefined);
  });

  it('counts successful answers per distinct request in /_stats', async () => {
    const provider = createProvider(model('openai-responses'), { baseUrl: fake.url, apiKey: 'good-key' });
    const distinct: ModelRequest = { ...req, messages: [{ role: 'user', content: `unique ${Date.now()}` }] };
    await provider.call(distinct);
    await provider.call(distinct);
    const stats = (await (await fetch(fake.url.replace(/\/v1$/, '/_stats'))).json()) as {
      byKey: Record<string, number>;
    };
    const last = fake.requests().at(-1)!;
    expect(last.request?.messages).toEqual(distinct.messages);
    expect(stats.byKey[last.key!]).toBe(2);
    expect(fake.stats()).toEqual({ requests: fake.requests().length, byKey: stats.byKey });
  });

  it('answers unknown routes with 404', async () => {
    const res = await fetch(`${fake.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });
});
