/**
 * The model proxy end to end: the official SDKs, pointed at the proxy with an agent token as their
 * key, talk to the fake provider over real HTTP; the log is the real Postgres one. Each protocol,
 * whole and streamed: the client gets the upstream's answer, the log one `model.response` per call
 * with exact usage and cost, steps continuing, the upstream the real key and the configured model.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventOf } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';
import {
  ANTHROPIC_COST,
  ARGS,
  type Harness,
  MODEL_NAMES,
  OPENAI_COST,
  REAL_KEY,
  responses,
  startHarness,
} from './harness.js';

let store: Store;
let h: Harness;

beforeAll(async () => {
  store = await openTestStore();
  h = await startHarness(store, {
    agents: {
      cc: 'claude-proxied',
      cc2: 'claude-proxied',
      cc3: 'claude-proxied',
      oc: 'chat-proxied',
      cx: 'resp-proxied',
      raw: 'claude-proxied',
      rawc: 'chat-proxied',
      rawr: 'resp-proxied',
    },
  });
});
afterAll(async () => {
  await h?.close();
  await store?.close();
});

const anthropicFor = (agent: string) =>
  new Anthropic({ apiKey: h.token(agent), baseURL: h.proxy.url, maxRetries: 0 });
const openaiFor = (agent: string) =>
  new OpenAI({ apiKey: h.token(agent), baseURL: `${h.proxy.url}/v1`, maxRetries: 0 });

const EDIT_CALL = { id: 'call_1', name: 'edit', arguments: JSON.stringify(ARGS) };
const ANTHROPIC_USAGE = { input: 120, cachedInput: 80, cacheWrite: 30, output: 25 };
const OPENAI_USAGE = { input: 120, cachedInput: 80, output: 25, reasoning: 7 };
const tools: Anthropic.Tool[] = [{ name: 'edit', description: 'edit', input_schema: { type: 'object' } }];

/** What the upstream received since `from`: never the token, always the real key and model. */
function upstreamSaw(from: number, token: string, path: string, model: string): void {
  const seen = h.fake.requests().slice(from);
  expect(seen.length).toBeGreaterThan(0);
  for (const r of seen) {
    expect(r.path).toBe(path);
    expect(JSON.stringify(r.headers)).not.toContain(token);
    expect(JSON.stringify(r.body)).not.toContain(token);
    const auth = r.headers.authorization ?? r.headers['x-api-key'];
    expect(auth === REAL_KEY || auth === `Bearer ${REAL_KEY}`).toBe(true);
    expect((r.body as { model: string }).model).toBe(model);
  }
}

describe('Anthropic Messages through the proxy (Claude Code)', () => {
  it('messages.create: the upstream answer, one model.response with exact usage and cost, the real key upstream only', async () => {
    const from = h.fake.requests().length;
    const client = anthropicFor('cc');
    const { data: msg, response } = await client.messages
      .create({
        model: 'claude-opus-4-1', // the agent's pick is ignored
        max_tokens: 100,
        messages: [{ role: 'user', content: 'fix it' }],
        tools,
      })
      .withResponse();
    expect(msg.model).toBe(MODEL_NAMES.anthropic);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.content).toEqual([
      { type: 'text', text: 'Editing now.' },
      { type: 'tool_use', id: 'call_1', name: 'edit', input: ARGS },
    ]);
    expect(msg.usage).toMatchObject({
      input_tokens: 120,
      cache_read_input_tokens: 80,
      cache_creation_input_tokens: 30,
      output_tokens: 25,
    });
    expect(JSON.stringify([...response.headers.entries()])).not.toContain(REAL_KEY);
    expect(JSON.stringify(msg)).not.toContain(REAL_KEY);
    upstreamSaw(from, h.token('cc'), '/v1/messages', MODEL_NAMES.anthropic);

    const logged = responses(await h.events('cc'));
    expect(logged).toHaveLength(1);
    const [one] = logged;
    expect(one).toMatchObject({ step: 1, requestMessages: 1 });
    expect(one?.latencyMs).toBeGreaterThanOrEqual(0);
    expect(one?.turn).toEqual({
      text: 'Editing now.',
      toolCalls: [EDIT_CALL],
      stopReason: 'tool_calls',
      usage: ANTHROPIC_USAGE,
      costUsd: one?.turn.costUsd,
      model: MODEL_NAMES.anthropic,
      responseId: msg.id,
    });
    expect(one?.turn.costUsd).toBeCloseTo(ANTHROPIC_COST, 12);
  });

  it('messages.stream: streamed through, logged as the next step', async () => {
    const client = anthropicFor('cc');
    const stream = client.messages.stream({
      model: MODEL_NAMES.anthropic,
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'edit', input: ARGS }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'edited' }] },
      ],
      tools,
    });
    let text = '';
    stream.on('text', (delta) => {
      text += delta;
    });
    const final = await stream.finalMessage();
    expect(text).toBe('All done.');
    expect(final.content).toEqual([{ type: 'text', text: 'All done.' }]);
    expect(final.stop_reason).toBe('end_turn');

    const logged = responses(await h.events('cc'));
    expect(logged.map((r) => r.step)).toEqual([1, 2]);
    const second = logged[1];
    expect(second?.requestMessages).toBe(3);
    expect(second?.turn).toMatchObject({
      text: 'All done.',
      toolCalls: [],
      stopReason: 'end',
      usage: ANTHROPIC_USAGE,
      model: MODEL_NAMES.anthropic,
      responseId: final.id,
    });
    expect(second?.turn.costUsd).toBeCloseTo(ANTHROPIC_COST, 12);
    expect(h.budget.usedTokens).toBeGreaterThanOrEqual(2 * 255);
  });

  it('numbers steps after the agent log already holds (a restarted proxy, a resumed agent)', async () => {
    const turn = {
      text: 'earlier',
      toolCalls: [],
      stopReason: 'end' as const,
      usage: { input: 1, cachedInput: undefined, cacheWrite: undefined, output: 1, reasoning: undefined },
      costUsd: 0,
      model: 'x',
    };
    await store.log.append(
      eventOf(h.runId, 'cc2', 'model.response', { step: 7, turn, latencyMs: 1, requestMessages: 1 }),
    );
    await anthropicFor('cc2').messages.create({
      model: 'any',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'go on' }],
    });
    expect(responses(await h.events('cc2')).map((r) => r.step)).toEqual([7, 8]);
  });

  it('numbers concurrent calls of one agent one after another', async () => {
    const client = anthropicFor('cc3');
    await Promise.all(
      [1, 2, 3].map(() =>
        client.messages.create({ model: 'any', max_tokens: 10, messages: [{ role: 'user', content: 'go' }] }),
      ),
    );
    expect(
      responses(await h.events('cc3'))
        .map((r) => r.step)
        .sort(),
    ).toEqual([1, 2, 3]);
  });
});

describe('OpenAI Chat Completions through the proxy', () => {
  it('create and stream: the upstream answer, exact usage (streams get usage even unasked), steps 1 and 2', async () => {
    const from = h.fake.requests().length;
    const client = openaiFor('oc');
    const res = await client.chat.completions.create({
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'fix it' }],
      tools: [{ type: 'function', function: { name: 'edit', parameters: { type: 'object' } } }],
    });
    expect(res.model).toBe(MODEL_NAMES.chat);
    const call = res.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('no function call');
    expect(call.function).toEqual({ name: 'edit', arguments: JSON.stringify(ARGS) });
    expect(res.usage).toMatchObject({ prompt_tokens: 200, completion_tokens: 25 });

    const stream = client.chat.completions.stream({
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'say done' }, ...toolRound()],
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('All done.');
    upstreamSaw(from, h.token('oc'), '/v1/chat/completions', MODEL_NAMES.chat);

    const logged = responses(await h.events('oc'));
    expect(logged.map((r) => [r.step, r.requestMessages])).toEqual([
      [1, 1],
      [2, 3],
    ]);
    expect(logged[0]?.turn).toMatchObject({
      text: 'Editing now.',
      toolCalls: [EDIT_CALL],
      stopReason: 'tool_calls',
      usage: OPENAI_USAGE,
      model: MODEL_NAMES.chat,
      responseId: res.id,
    });
    expect(logged[1]?.turn).toMatchObject({ text: 'All done.', stopReason: 'end', usage: OPENAI_USAGE });
    for (const r of logged) {
      expect(r.turn.usage.cacheWrite).toBeUndefined();
      expect(r.turn.costUsd).toBeCloseTo(OPENAI_COST, 12);
    }
  });
});

function toolRound(): OpenAI.Chat.ChatCompletionMessageParam[] {
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'edit', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'edited' },
  ];
}

describe('OpenAI Responses through the proxy (Codex)', () => {
  it('create and stream: the upstream answer, exact usage, steps 1 and 2', async () => {
    const from = h.fake.requests().length;
    const client = openaiFor('cx');
    const res = await client.responses.create({
      model: 'o3',
      input: [{ role: 'user', content: 'fix it' }],
      tools: [{ type: 'function', name: 'edit', parameters: { type: 'object' }, strict: false }],
    });
    expect(res.model).toBe(MODEL_NAMES.responses);
    expect(res.output_text).toBe('Editing now.');
    const stream = client.responses.stream({
      model: 'o3',
      input: [
        { role: 'user', content: 'fix it' },
        { type: 'function_call', call_id: 'call_1', name: 'edit', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'edited' },
      ],
    });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('All done.');
    upstreamSaw(from, h.token('cx'), '/v1/responses', MODEL_NAMES.responses);

    const logged = responses(await h.events('cx'));
    expect(logged.map((r) => [r.step, r.requestMessages])).toEqual([
      [1, 1],
      [2, 3],
    ]);
    expect(logged[0]?.turn).toMatchObject({
      text: 'Editing now.',
      toolCalls: [EDIT_CALL],
      stopReason: 'tool_calls',
      usage: OPENAI_USAGE,
      model: MODEL_NAMES.responses,
      responseId: res.id,
    });
    expect(logged[1]?.turn).toMatchObject({ text: 'All done.', stopReason: 'end', usage: OPENAI_USAGE });
    for (const r of logged) expect(r.turn.costUsd).toBeCloseTo(OPENAI_COST, 12);
  });
});

describe('bytes through the proxy', () => {
  const cases = [
    { agent: 'raw', path: '/v1/messages', auth: 'x-api-key', body: { max_tokens: 50 } },
    { agent: 'rawc', path: '/v1/chat/completions', auth: 'authorization', body: {} },
    { agent: 'rawr', path: '/v1/responses', auth: 'authorization', body: {} },
  ];
  // Ids count the fake's calls and timestamps tick: the only parts that may differ.
  const normal = (text: string) =>
    text.replace(/fake_\d+/g, 'fake_N').replace(/"(created|created_at)":\d+/g, '"$1":0');

  for (const c of cases) {
    for (const stream of [false, true]) {
      it(`${c.path}${stream ? ' (stream)' : ''}: the client gets the upstream's bytes`, async () => {
        const model =
          c.path === '/v1/messages'
            ? MODEL_NAMES.anthropic
            : c.path.includes('chat')
              ? MODEL_NAMES.chat
              : MODEL_NAMES.responses;
        const payload = c.path.includes('responses')
          ? { input: 'hello', stream }
          : { messages: [{ role: 'user', content: 'hello' }], stream };
        const body = JSON.stringify({
          model,
          ...c.body,
          ...payload,
          ...(stream && c.path.includes('chat') ? { stream_options: { include_usage: true } } : {}),
        });
        const headers = (key: string) => ({
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          [c.auth]: c.auth === 'authorization' ? `Bearer ${key}` : key,
        });
        const direct = await fetch(`${h.fake.url.replace(/\/v1$/, '')}${c.path}`, {
          method: 'POST',
          headers: headers(REAL_KEY),
          body,
        });
        const proxied = await fetch(`${h.proxy.url}${c.path}`, {
          method: 'POST',
          headers: headers(h.token(c.agent)),
          body,
        });
        expect(proxied.status).toBe(direct.status);
        expect(proxied.headers.get('content-type')).toBe(direct.headers.get('content-type'));
        const text = await proxied.text();
        expect(normal(text)).toBe(normal(await direct.text()));
        expect(text).not.toContain(REAL_KEY);
        expect(responses(await h.events(c.agent)).length).toBe(stream ? 2 : 1);
      });
    }
  }
});
