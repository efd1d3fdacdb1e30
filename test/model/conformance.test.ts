/**
 * One conformance suite for every provider, run against the fake provider server over real HTTP
 * (the scripted provider runs the parts that do not involve HTTP).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createProvider,
  createScriptedProvider,
  createSimProvider,
  type ScriptedPolicy,
  type ScriptedTurn,
} from '../../src/model/index.js';
import type {
  Message,
  ModelRecord,
  ModelRequest,
  ModelResult,
  Prices,
  Protocol,
  ToolSpec,
  Usage,
} from '../../src/model/types.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';

interface Case {
  name: string;
  protocol: Protocol;
  stream: boolean;
  /** What the protocol can carry of the neutral usage. */
  usage: (u: Usage) => Usage;
  /** The simulated `sim:` provider: the scripted provider's contract, its turns labelled simulated. */
  sim?: boolean;
}

const openaiUsage = (u: Usage): Usage => ({ ...u, cacheWrite: undefined });
const CASES: Case[] = [
  { name: 'openai-chat (stream)', protocol: 'openai-chat', stream: true, usage: openaiUsage },
  { name: 'openai-chat', protocol: 'openai-chat', stream: false, usage: openaiUsage },
  { name: 'openai-responses', protocol: 'openai-responses', stream: false, usage: openaiUsage },
  { name: 'openai-responses (stream)', protocol: 'openai-responses', stream: true, usage: openaiUsage },
  { name: 'anthropic', protocol: 'anthropic', stream: false, usage: (u) => ({ ...u, reasoning: undefined }) },
  {
    name: 'anthropic (stream)',
    protocol: 'anthropic',
    stream: true,
    usage: (u) => ({ ...u, reasoning: undefined }),
  },
  { name: 'scripted', protocol: 'scripted', stream: false, usage: (u) => u },
  { name: 'sim (simulated)', protocol: 'scripted', stream: false, usage: (u) => u, sim: true },
];

const PRICES: Prices = { input: 2, cachedInput: 0.5, cacheWrite: 2.5, output: 10 };
const USAGE: Usage = { input: 100, cachedInput: 40, cacheWrite: 10, output: 20, reasoning: 5 };

const TOOLS: ToolSpec[] = [
  {
    name: 'edit',
    description: 'Replace text in a file',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
      required: ['path', 'old', 'new'],
    },
  },
  {
    name: 'ls',
    description: 'List a directory',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

const CONVERSATION: Message[] = [
  { role: 'user', content: 'Fix the failing test in src/sum.ts' },
  {
    role: 'assistant',
    content: 'Looking around.',
    toolCalls: [{ id: 'call_a', name: 'ls', arguments: '{"path":"src"}' }],
  },
  { role: 'tool', toolCallId: 'call_a', name: 'ls', content: 'sum.ts\nsum.test.ts', isError: false },
];

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You are a careful coding agent.', messages: CONVERSATION, tools: TOOLS, ...extra };
}

let fake: FakeProvider;
let policy: ScriptedPolicy = () => ({ text: 'unset' });

beforeAll(async () => {
  fake = await startFakeProvider({ policy: (req, i) => policy(req, i) });
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.setFailures(undefined);
});

function modelFor(c: Case, prices: Prices | null = PRICES): ModelRecord {
  return {
    id: `test-${c.protocol}`,
    protocol: c.protocol,
    name: 'test-model',
    contextWindow: 100_000,
    maxOutput: 1000,
    prices,
  };
}

function providerFor(
  c: Case,
  opts: { prices?: Prices | null; timeoutMs?: number; maxRetries?: number; latencyMs?: number } = {},
) {
  if (c.sim) {
    const model = modelFor(c, opts.prices === undefined ? PRICES : opts.prices);
    return createSimProvider((req, i) => policy(req, i), { model, latencyMs: opts.latencyMs ?? 0 });
  }
  if (c.protocol === 'scripted') {
    const model = modelFor(c, opts.prices === undefined ? PRICES : opts.prices);
    return createScriptedProvider((req, i) => policy(req, i), { model, latencyMs: opts.latencyMs ?? 0 });
  }
  return createProvider(modelFor(c, opts.prices === undefined ? PRICES : opts.prices), {
    apiKey: 'test-key',
    baseUrl: fake.url,
    baseDelayMs: 1,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.maxRetries !== undefined ? { maxRetries: opts.maxRetries } : {}),
  });
}

function turnOf(result: ModelResult) {
  if (!result.ok) throw new Error(`expected a turn, got ${result.error.kind}: ${result.error.message}`);
  return result.turn;
}

function errorOf(result: ModelResult) {
  if (result.ok) throw new Error('expected an error, got a turn');
  return result.error;
}

describe.each(CASES)('provider conformance: $name', (c) => {
  const http = c.protocol !== 'scripted';

  it('returns a text turn, streaming deltas when asked', async () => {
    policy = (): ScriptedTurn => ({ text: 'The bug is an off-by-one in sum().', usage: USAGE });
    const deltas: string[] = [];
    const before = fake.requests().length;
    const turn = turnOf(
      await providerFor(c).call(request({ stream: c.stream }), { onText: (d) => deltas.push(d) }),
    );
    expect(turn.text).toBe('The bug is an off-by-one in sum().');
    expect(turn.toolCalls).toEqual([]);
    expect(turn.stopReason).toBe('end');
    expect(deltas.join('')).toBe(turn.text);
    if (c.stream) expect(deltas.length).toBeGreaterThan(1);
    if (c.sim) expect(turn.model).toBe('test-model (simulated)');
    if (http) {
      expect(turn.model).toBe('test-model');
      expect(turn.responseId).toBeTruthy();
      const sent = fake.requests().slice(before);
      expect(sent).toHaveLength(1);
      // The server decodes the wire request back: the mapping must lose nothing the protocol carries.
      const decoded = sent[0]!.request!;
      expect(decoded.system).toBe(request().system);
      expect(decoded.tools).toEqual(TOOLS);
      expect(decoded.messages).toEqual(CONVERSATION);
      expect(decoded.stream ?? false).toBe(c.stream);
      expect(decoded.maxOutput).toBe(1000);
    }
  });

  it('returns tool calls with arguments round-tripped', async () => {
    const args = { path: 'src/sum.ts', old: 'i <= n', new: 'i < n // "quoted" ü ✓' };
    policy = (_req, i): ScriptedTurn => ({
      text: c.protocol === 'anthropic' ? 'Editing.' : '',
      toolCalls: [
        { name: 'edit', arguments: args, id: `call_edit_${i}` },
        { name: 'ls', arguments: {} },
      ],
    });
    const turn = turnOf(await providerFor(c).call(request({ stream: c.stream })));
    expect(turn.stopReason).toBe('tool_calls');
    expect(turn.toolCalls).toHaveLength(2);
    const [edit, ls] = turn.toolCalls;
    expect(edit!.name).toBe('edit');
    expect(edit!.id).toMatch(/^call_edit_\d+$/);
    expect(JSON.parse(edit!.arguments)).toEqual(args);
    expect(ls!.name).toBe('ls');
    expect(JSON.parse(ls!.arguments)).toEqual({});
    expect(ls!.id).not.toBe(edit!.id);
  });

  if (c.protocol !== 'anthropic') {
    it('keeps invalid tool-call argument text raw', async () => {
      policy = (): ScriptedTurn => ({ toolCalls: [{ name: 'edit', arguments: '{"path": "a.ts", broken' }] });
      const turn = turnOf(await providerFor(c).call(request({ stream: c.stream })));
      expect(turn.toolCalls[0]!.arguments).toBe('{"path": "a.ts", broken');
    });
  }

  it('converts usage, cached fields and reasoning included', async () => {
    policy = (): ScriptedTurn => ({ text: 'ok', usage: USAGE });
    const turn = turnOf(await providerFor(c).call(request({ stream: c.stream })));
    expect(turn.usage).toEqual(c.usage(USAGE));
  });

  it('computes the cost once from the model prices', async () => {
    policy = (): ScriptedTurn => ({ text: 'ok', usage: USAGE });
    const turn = turnOf(await providerFor(c).call(request({ stream: c.stream })));
    const u = c.usage(USAGE);
    // 100×2 + 40×0.5 + (10×2.5 where the protocol reports cache writes) + 20×10, per million.
    const expected = (200 + 20 + (u.cacheWrite === undefined ? 0 : 25) + 200) / 1_000_000;
    expect(turn.costUsd).toBeCloseTo(expected, 12);
  });

  it('reports costUsd null for an unpriced model', async () => {
    policy = (): ScriptedTurn => ({ text: 'ok', usage: USAGE });
    const turn = turnOf(await providerFor(c, { prices: null }).call(request({ stream: c.stream })));
    expect(turn.costUsd).toBeNull();
    expect(turn.usage.input).toBe(100);
  });

  it('returns kind aborted when the signal fires', async () => {
    policy = (): ScriptedTurn => ({ text: 'too late' });
    fake.setFailures({ sequence: [{ delayMs: 3000 }] });
    const provider = providerFor(c, { latencyMs: 3000 });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const error = errorOf(await provider.call(request({ stream: c.stream }), { signal: controller.signal }));
    expect(error.kind).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  if (!http) return;

  it('retries a 429 after the Retry-After it was given, then succeeds', async () => {
    policy = (): ScriptedTurn => ({ text: 'after the wait' });
    fake.setFailures({ sequence: [{ status: 429, retryAfterS: 1 }] });
    const retries: Array<{ attempt: number; delayMs: number; kind: string }> = [];
    const started = Date.now();
    const turn = turnOf(
      await providerFor(c).call(request({ stream: c.stream }), {
        onRetry: ({ attempt, delayMs, error }) => retries.push({ attempt, delayMs, kind: error.kind }),
      }),
    );
    expect(turn.text).toBe('after the wait');
    expect(retries).toEqual([{ attempt: 1, delayMs: 1000, kind: 'rate_limit' }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('retries 5xx errors with backoff, then succeeds', async () => {
    policy = (): ScriptedTurn => ({ text: 'recovered' });
    fake.setFailures({ sequence: [{ status: 500 }, { status: 503 }, { drop: true }] });
    const kinds: string[] = [];
    const turn = turnOf(
      await providerFor(c).call(request({ stream: c.stream }), {
        onRetry: ({ error }) => kinds.push(error.kind),
      }),
    );
    expect(turn.text).toBe('recovered');
    expect(kinds).toEqual(['server', 'server', 'network']);
  });

  it('gives up after maxRetries with the last error', async () => {
    fake.setFailures(() => ({ status: 503, message: 'overloaded' }));
    const error = errorOf(await providerFor(c, { maxRetries: 2 }).call(request({ stream: c.stream })));
    expect(error).toMatchObject({ kind: 'server', status: 503, attempts: 3 });
    expect(error.message).toContain('overloaded');
  });

  it('does not retry 401: kind auth', async () => {
    const before = fake.stats().requests;
    fake.setFailures(() => ({ status: 401, message: 'invalid x-api-key' }));
    const error = errorOf(await providerFor(c).call(request({ stream: c.stream })));
    expect(error).toMatchObject({ kind: 'auth', status: 401, attempts: 1 });
    expect(error.message).toContain('invalid x-api-key');
    expect(fake.stats().requests - before).toBe(1);
  });

  it('does not retry 400: kind bad_request', async () => {
    fake.setFailures(() => ({ status: 400, message: 'messages: bad shape' }));
    const error = errorOf(await providerFor(c).call(request({ stream: c.stream })));
    expect(error).toMatchObject({ kind: 'bad_request', status: 400, attempts: 1 });
  });

  it('times out a slow answer: kind timeout, after retrying it', async () => {
    fake.setFailures(() => ({ delayMs: 2000 }));
    const started = Date.now();
    const error = errorOf(
      await providerFor(c, { timeoutMs: 150, maxRetries: 1 }).call(request({ stream: c.stream })),
    );
    expect(error).toMatchObject({ kind: 'timeout', attempts: 2 });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('reports a malformed response as kind malformed, not retried', async () => {
    fake.setFailures({ sequence: [{ malformed: true }] });
    const error = errorOf(await providerFor(c).call(request({ stream: c.stream })));
    expect(error).toMatchObject({ kind: 'malformed', attempts: 1 });
  });
});
