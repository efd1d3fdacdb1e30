/**
 * What the proxy refuses before anything goes upstream: tokens that are missing, of another run,
 * expired or without the model scope (401 in the client protocol's shape); an agent without a model;
 * a client whose protocol is not its model's; a spent budget (402, logged as limit.hit once).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunSecret, issueAgentToken } from '../../src/auth/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { type Harness, responses, startHarness } from './harness.js';

let store: Store;
let h: Harness;

beforeAll(async () => {
  store = await openTestStore();
  h = await startHarness(store, { agents: { cc: 'claude-proxied', oc: 'chat-proxied' } });
});
afterAll(async () => {
  await h?.close();
  await store?.close();
});

async function post(path: string, headers: Record<string, string>, body: unknown = { messages: [] }) {
  const res = await fetch(`${h.proxy.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('authentication', () => {
  const otherRun = () =>
    issueAgentToken(createRunSecret(), {
      runId: testRunId('other'),
      agent: 'cc',
      expiresAt: Date.now() + 60_000,
    });
  const cases: [string, () => Record<string, string>][] = [
    ['no token', () => ({})],
    ['a token of another run', () => ({ 'x-api-key': otherRun() })],
    [
      'a token naming this run, signed with another secret',
      () => ({ 'x-api-key': h.token('cc', { secret: createRunSecret() }) }),
    ],
    ['an expired token', () => ({ 'x-api-key': h.token('cc', { expiresAt: Date.now() - 1 }) })],
    [
      'a token without the model scope',
      () => ({
        'x-api-key': issueAgentToken(h.secret, {
          runId: h.runId,
          agent: 'cc',
          expiresAt: Date.now() + 60_000,
          scopes: ['git'],
        }),
      }),
    ],
    ['something else as the key', () => ({ authorization: 'Bearer sk-ant-not-a-colony-token' })],
  ];

  for (const [name, headers] of cases) {
    it(`${name}: 401 in each protocol's shape, nothing forwarded`, async () => {
      const before = h.fake.requests().length;
      const anthropic = await post('/v1/messages', headers());
      expect(anthropic.status).toBe(401);
      expect(anthropic.json).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
      const chat = await post('/v1/chat/completions', headers());
      expect(chat.status).toBe(401);
      expect(chat.json).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
      expect(h.fake.requests().length).toBe(before);
    });
  }

  it('the SDKs see an authentication error (not retried)', async () => {
    const token = h.token('cc', { expiresAt: Date.now() - 1 });
    const anthropic = new Anthropic({ apiKey: token, baseURL: h.proxy.url, maxRetries: 3 });
    const failed = await anthropic.messages
      .create({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((failed as Error).message).toContain('expired');
    const openai = new OpenAI({ apiKey: token, baseURL: `${h.proxy.url}/v1`, maxRetries: 3 });
    const failedToo = await openai.responses.create({ model: 'x', input: 'hi' }).catch((e: unknown) => e);
    expect(failedToo).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('Authorization: Bearer works as well as x-api-key (Claude Code with ANTHROPIC_AUTH_TOKEN)', async () => {
    const ok = await post(
      '/v1/messages',
      { authorization: `Bearer ${h.token('cc')}`, 'anthropic-version': '2023-06-01' },
      { model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
    );
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ type: 'message', model: 'claude-upstream-1' });
  });
});

describe('routing and models', () => {
  it('an agent the run gives no model: 403', async () => {
    const res = await post('/v1/messages', { 'x-api-key': h.token('nobody') });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
  });

  it("a client of another protocol than the agent's model: 400 naming both, nothing forwarded", async () => {
    const before = h.fake.requests().length;
    const openai = new OpenAI({ apiKey: h.token('cc'), baseURL: `${h.proxy.url}/v1`, maxRetries: 0 });
    const failed = await openai.chat.completions
      .create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.BadRequestError);
    const message = (failed as Error).message;
    expect(message).toContain("'claude-proxied' speaks anthropic");
    expect(message).toContain('POST /v1/chat/completions (openai-chat)');
    const anthropic = new Anthropic({ apiKey: h.token('oc'), baseURL: h.proxy.url, maxRetries: 0 });
    const failedToo = await anthropic.messages
      .create({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(failedToo).toBeInstanceOf(Anthropic.BadRequestError);
    expect((failedToo as Error).message).toContain("'chat-proxied' speaks openai-chat");
    expect(h.fake.requests().length).toBe(before);
  });

  it('unknown routes are 404 and other methods 405, in a protocol shape', async () => {
    const missing = await post('/v1/embeddings', { authorization: `Bearer ${h.token('oc')}` });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: { type: 'invalid_request_error' } });
    const counting = await post('/v1/messages/count_tokens', { 'x-api-key': h.token('cc') });
    expect(counting.status).toBe(404);
    expect(counting.json).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const get = await fetch(`${h.proxy.url}/v1/messages`);
    expect(get.status).toBe(405);
  });

  it('a body that is not a JSON object: 400', async () => {
    const res = await fetch(`${h.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': h.token('cc') },
      body: '[1, 2',
    });
    expect(res.status).toBe(400);
  });
});

describe('budget', () => {
  it('a token budget that the next call would pass refuses it before forwarding (402 billing_error) and logs limit.hit once', async () => {
    const local = await startHarness(store, { agents: { cc: 'claude-proxied' }, budget: { tokens: 270 } });
    try {
      const client = new Anthropic({ apiKey: local.token('cc'), baseURL: local.proxy.url, maxRetries: 3 });
      const ask = () =>
        client.messages
          .create({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
          .catch((e: unknown) => e);
      expect(await ask()).toMatchObject({ type: 'message' }); // 255 tokens used of 270; the next request (~18) would pass it
      const refused = await ask();
      expect(refused).toBeInstanceOf(Anthropic.APIError);
      expect((refused as InstanceType<typeof Anthropic.APIError>).status).toBe(402);
      expect((refused as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
        type: 'error',
        error: { type: 'billing_error' },
      });
      expect((refused as Error).message).toContain(
        'budget_tokens of 270 would be exceeded by the next call (used 255)',
      );
      await ask();
      expect(local.fake.requests()).toHaveLength(1); // the SDK's retries too were refused: none reached upstream
      const events = await local.events('cc');
      expect(events.map((e) => e.kind)).toEqual(['model.response', 'limit.hit']);
      expect(events[1]?.data).toEqual({ limit: 'budget_tokens', value: 270, used: 255 });
      expect(responses(events)).toHaveLength(1);
    } finally {
      await local.close();
    }
  });

  it('a spent money budget: 402 in the OpenAI shape', async () => {
    const local = await startHarness(store, { agents: { oc: 'chat-proxied' }, budget: { usd: 0 } });
    try {
      const client = new OpenAI({
        apiKey: local.token('oc'),
        baseURL: `${local.proxy.url}/v1`,
        maxRetries: 2,
      });
      const refused = await client.chat.completions
        .create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect(refused).toMatchObject({ status: 402, type: 'insufficient_quota', code: 'budget_exhausted' });
      expect(local.fake.requests()).toHaveLength(0);
      const events = await local.events('oc');
      expect(events.map((e) => e.kind)).toEqual(['limit.hit']);
      expect(events[0]?.data).toMatchObject({ limit: 'budget_usd', value: 0, used: 0 });
    } finally {
      await local.close();
    }
  });
});
