/**
 * Upstream failures through the proxy: a 429 passes through (Retry-After included) and shrinks the
 * run's rate gate; a 500, a dropped connection, a time-out and an answer cut mid-stream reach the
 * client as errors of its protocol — never a hang — and each is logged as `model.error`. A call holds
 * a gate slot while in flight, and a client that hangs up frees it.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import type { FailurePlan } from '../fake-provider/server.js';
import { openTestStore } from '../helpers/db.js';
import { type Harness, type HarnessOptions, responses, startHarness } from './harness.js';

let store: Store;
const open: Harness[] = [];

beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await Promise.all(open.map((h) => h.close()));
  await store?.close();
});

const AGENTS = { cc: 'claude-proxied', oc: 'chat-proxied', cx: 'resp-proxied' };

async function harness(
  failures: FailurePlan | undefined,
  extra: Partial<HarnessOptions> = {},
): Promise<Harness> {
  const h = await startHarness(store, { agents: AGENTS, failures, ...extra });
  open.push(h);
  return h;
}

const anthropicFor = (h: Harness) =>
  new Anthropic({ apiKey: h.token('cc'), baseURL: h.proxy.url, maxRetries: 0, timeout: 10_000 });
const openaiFor = (h: Harness, agent = 'oc') =>
  new OpenAI({ apiKey: h.token(agent), baseURL: `${h.proxy.url}/v1`, maxRetries: 0, timeout: 10_000 });
const hello = { model: 'x', max_tokens: 20, messages: [{ role: 'user' as const, content: 'hi' }] };

function errors(events: StoredEvent[]) {
  return events.flatMap((e) => (e.kind === 'model.error' ? [e.data] : []));
}

describe('upstream failures', () => {
  it('a 429 passes through with its Retry-After, shrinks the gate and is logged as rate_limit', async () => {
    const h = await harness({ sequence: [{ status: 429, retryAfterS: 7, message: 'slow down' }] });
    const { response, error } = await anthropicFor(h)
      .messages.create(hello)
      .withResponse()
      .then(
        (r) => ({ response: r.response, error: undefined }),
        (e: unknown) => ({ response: undefined, error: e }),
      );
    expect(response).toBeUndefined();
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const rateLimited = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(rateLimited.headers?.get('retry-after')).toBe('7');
    expect(rateLimited.error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
    expect(h.gate.stats()).toMatchObject({ limit: 1, shrinks: 1, inFlight: 0 });
    expect(errors(await h.events('cc'))).toEqual([
      { step: 1, kind: 'rate_limit', status: 429, message: 'HTTP 429: slow down', attempts: 1 },
    ]);
    // The CLI's retry then goes through and takes step 1.
    await anthropicFor(h).messages.create(hello);
    expect(responses(await h.events('cc')).map((r) => r.step)).toEqual([1]);
  });

  it('a 500 reaches the client as a server error and is logged', async () => {
    const h = await harness({ sequence: [{ status: 500, message: 'boom' }] });
    const error = await openaiFor(h)
      .chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as Error).message).toContain('boom');
    expect(errors(await h.events('oc'))).toEqual([
      { step: 1, kind: 'server', status: 500, message: 'HTTP 500: boom', attempts: 1 },
    ]);
    expect(h.gate.stats()).toMatchObject({ limit: null, inFlight: 0 });
  });

  it('a connection dropped before any answer: 502 in the protocol shape, logged as network', async () => {
    const h = await harness({ sequence: [{ drop: true }] });
    const res = await fetch(`${h.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': h.token('cc'), 'content-type': 'application/json' },
      body: JSON.stringify(hello),
    });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(errors(await h.events('cc'))).toMatchObject([{ step: 1, kind: 'network' }]);
  });

  it('no answer within the time-out: 504, logged as timeout', async () => {
    const h = await harness({ sequence: [{ delayMs: 5_000 }] }, { proxy: { timeoutMs: 300 } });
    const started = Date.now();
    const error = await openaiFor(h, 'cx')
      .responses.create({ model: 'x', input: 'hi' })
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect(errors(await h.events('cx'))).toMatchObject([{ step: 1, kind: 'timeout' }]);
  });

  it('an Anthropic stream cut midway ends with an error event, not a hang, and is logged', async () => {
    const h = await harness({ sequence: [{ cutAfterFrames: 3 }] });
    const stream = anthropicFor(h).messages.stream(hello);
    let text = '';
    stream.on('text', (delta) => {
      text += delta;
    });
    const error = await stream.finalMessage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toContain('closed the answer before its end');
    expect(text).toBe('Editing now.'.slice(0, text.length)); // what came before the cut came through
    expect(errors(await h.events('cc'))).toMatchObject([{ step: 1, kind: 'network' }]);
    expect(responses(await h.events('cc'))).toEqual([]);
    expect(h.gate.stats().inFlight).toBe(0);
  });

  it('cut Chat and Responses streams and a cut whole answer are errors for the client too', async () => {
    const h = await harness({
      sequence: [{ cutAfterFrames: 2 }, { cutAfterFrames: 2 }, { cutAfterFrames: 1 }],
    });
    const chat = openaiFor(h).chat.completions.stream({
      model: 'x',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(await chat.finalChatCompletion().catch((e: unknown) => e)).toBeInstanceOf(Error);
    const responsesStream = openaiFor(h, 'cx').responses.stream({ model: 'x', input: 'hi' });
    expect(await responsesStream.finalResponse().catch((e: unknown) => e)).toBeInstanceOf(Error);
    const whole = await openaiFor(h)
      .chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(whole).toBeInstanceOf(Error); // the 200 and half a body came through, then the connection broke
    expect(errors(await h.events('oc')).map((e) => e.kind)).toEqual(['network', 'network']);
    expect(errors(await h.events('cx')).map((e) => e.kind)).toEqual(['network']);
    expect(h.gate.stats().inFlight).toBe(0);
  });
});

describe('the rate gate', () => {
  it('a call holds a slot while in flight; a client that hangs up frees it and the call is logged as aborted', async () => {
    const h = await harness(undefined, { streamFrameDelayMs: 150 });
    const slow = anthropicFor(h).messages.create({ ...hello, stream: true });
    const stream = await slow;
    await new Promise((r) => setTimeout(r, 100));
    expect(h.gate.stats().inFlight).toBe(1);
    stream.controller.abort();
    await waitFor(() => h.gate.stats().inFlight === 0);
    await waitFor(async () => errors(await h.events('cc')).length === 1);
    expect(errors(await h.events('cc'))).toMatchObject([{ step: 1, kind: 'aborted' }]);
  });

  it('a gate at its limit queues the next call until the first ends', async () => {
    const h = await harness({ sequence: [{ status: 429 }] }, { latencyMs: 200 });
    await anthropicFor(h)
      .messages.create(hello)
      .catch(() => undefined); // limit → 1
    expect(h.gate.stats().limit).toBe(1);
    const client = anthropicFor(h);
    const first = client.messages.create(hello);
    await waitFor(() => h.gate.stats().inFlight === 1);
    const second = client.messages.create(hello);
    await waitFor(() => h.gate.stats().waiting === 1);
    await Promise.all([first, second]);
    expect(h.gate.stats()).toMatchObject({ inFlight: 0, waiting: 0 });
    expect(responses(await h.events('cc')).map((r) => r.step)).toEqual([1, 2]);
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
