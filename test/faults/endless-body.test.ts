/**
 * A provider that answers 200 and never ends its body: a JSON document that never closes, an SSE
 * stream of deltas (or one line) without end as fast as we read, and a trickle of SSE keep-alive
 * comments. Through each wire provider against the fake provider: the call ends with a clear model
 * error (the body cap or the total time-out), in bounded time and memory; in the agent loop it is
 * retried per the retry policy and then ends the agent with `model.error` and a reason that says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../src/agent/budget.js';
import { runAgent } from '../../src/agent/loop.js';
import { createScrubber } from '../../src/core/secrets.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/model/http.js';
import { createProvider } from '../../src/model/index.js';
import type { ModelRecord, ModelResult, Protocol } from '../../src/model/types.js';
import type { Store } from '../../src/store/index.js';
import type { EndlessBody } from '../fake-provider/failures.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';

const MAX_RSS_GROWTH = 200 * 1024 * 1024;
const WIRE: Protocol[] = ['openai-chat', 'openai-responses', 'anthropic'];

let fake: FakeProvider;
let store: Store;

beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy: () => ({ text: 'never sent' }), record: false });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
});

const model = (protocol: Protocol): ModelRecord => ({
  id: `${protocol}:fake`,
  protocol,
  name: 'fake',
  contextWindow: 128_000,
  maxOutput: 8_192,
  prices: null,
  baseUrl: fake.url,
});

const REQUEST = { system: 'sys', messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

/** One call with the endless body `kind`; its result, duration and the peak RSS growth meanwhile. */
async function endlessCall(
  protocol: Protocol,
  kind: EndlessBody,
  options: { stream: boolean; timeoutMs?: number; intervalMs?: number; maxRetries?: number },
): Promise<{ result: ModelResult; ms: number; rssGrowth: number; texts: number }> {
  fake.setFailures(() => ({
    endless: kind,
    ...(options.intervalMs ? { intervalMs: options.intervalMs } : {}),
  }));
  const provider = createProvider(model(protocol), {
    apiKey: 'k',
    maxRetries: options.maxRetries ?? 0,
    baseDelayMs: 1,
    timeoutMs: options.timeoutMs ?? 60_000,
  });
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  let texts = 0;
  const started = performance.now();
  try {
    const result = await provider.call({ ...REQUEST, stream: options.stream }, { onText: () => texts++ });
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, ms: performance.now() - started, rssGrowth: peak - before, texts };
  } finally {
    clearInterval(sampler);
    fake.setFailures(undefined);
  }
}

const capMessage = `the response body exceeded ${DEFAULT_MAX_BODY_BYTES} bytes (the provider kept sending; a body that never ends?)`;

describe('an endless response body', () => {
  for (const protocol of WIRE) {
    it(`${protocol}: a JSON body that never closes is cut at the body cap, in bounded memory`, async () => {
      const m = await endlessCall(protocol, 'json', { stream: false });
      expect(m.result).toEqual({ ok: false, error: { kind: 'server', message: capMessage, attempts: 1 } });
      expect(m.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
      expect(m.ms).toBeLessThan(15_000);
    });

    it(`${protocol}: a stream of deltas that never finishes is cut at the body cap`, async () => {
      const m = await endlessCall(protocol, 'sse-deltas', { stream: true });
      expect(m.result).toEqual({ ok: false, error: { kind: 'server', message: capMessage, attempts: 1 } });
      // It really was a stream being read (the deltas reached the display) until the cap.
      expect(m.texts).toBeGreaterThan(10_000);
      expect(m.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
      expect(m.ms).toBeLessThan(20_000);
    });
  }

  it('a stream line that never ends is refused by the SSE parser, not buffered', async () => {
    const m = await endlessCall('openai-chat', 'sse-line', { stream: true });
    expect(m.result).toEqual({
      ok: false,
      error: {
        kind: 'malformed',
        message: `a stream line is longer than ${32 * 1024 * 1024} characters`,
        attempts: 1,
      },
    });
    expect(m.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
    expect(m.ms).toBeLessThan(15_000);
  });

  it('a trickle of keep-alive comments ends at the total time-out, and is retried', async () => {
    const m = await endlessCall('anthropic', 'sse-comments', {
      stream: true,
      timeoutMs: 400,
      intervalMs: 20,
      maxRetries: 1,
    });
    expect(m.result).toEqual({
      ok: false,
      error: { kind: 'timeout', message: 'no complete response within 400 ms', attempts: 2 },
    });
    expect(m.ms).toBeGreaterThanOrEqual(790);
    expect(m.ms).toBeLessThan(5000);
  });

  it('in the agent loop: retried per the policy, then model.error and a failed agent with the reason', async () => {
    fake.setFailures(() => ({ endless: 'sse-deltas' }));
    const runId = testRunId('endless');
    const provider = createProvider(model('openai-chat'), { apiKey: 'k', maxRetries: 1, baseDelayMs: 1 });
    try {
      const outcome = await runAgent(
        {
          runId,
          name: 'solo',
          profile: 'coder',
          task: 'anything',
          system: 'sys',
          tools: [],
          provider,
          maxSteps: 5,
          stream: true,
        },
        { log: store.log, scrubber: createScrubber([]), budget: new Budget({}), history: [] },
      );
      expect(outcome).toMatchObject({
        status: 'failed',
        stopReason: 'model_error',
        reason: `model error (server): ${capMessage}`,
        steps: 0,
      });
    } finally {
      fake.setFailures(undefined);
    }
    await store.log.flush();
    const events = await store.log.read(runId);
    expect(events.map((e) => e.kind)).toEqual(['model.retry', 'model.error', 'agent.finished']);
    expect(events[1]?.data).toMatchObject({ step: 1, kind: 'server', attempts: 2, message: capMessage });
    expect(await store.log.verify(runId)).toMatchObject({ ok: true });
  });
});
