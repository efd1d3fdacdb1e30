/**
 * The official `openai` and `@anthropic-ai/sdk` clients, pointed at the fake provider, must parse its
 * replies: this keeps the fake faithful to the real wire formats.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../../src/model/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';

const USAGE = { input: 120, cachedInput: 80, cacheWrite: 30, output: 25, reasoning: 7 };
const ARGS = { path: 'src/a.ts', old: 'x', new: 'y "z"' };

let fake: FakeProvider;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  // Answers with a tool call until a tool result comes back, then with text.
  fake = await startFakeProvider({
    policy: (req): ScriptedTurn =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: 'All done.', usage: USAGE }
        : {
            text: 'Editing now.',
            toolCalls: [{ name: 'edit', arguments: ARGS, id: 'call_1' }],
            usage: USAGE,
          },
  });
  openai = new OpenAI({ apiKey: 'k', baseURL: fake.url, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'k', baseURL: fake.url.replace(/\/v1$/, ''), maxRetries: 0 });
});
afterAll(async () => {
  await fake.close();
});

const chatTools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'edit', description: 'edit a file', parameters: { type: 'object' } },
  },
];

describe('openai SDK against the fake provider', () => {
  it('chat.completions.create parses tool calls and usage', async () => {
    const res = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'fix it' }],
      tools: chatTools,
    });
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    if (call.type !== 'function') throw new Error('not a function call');
    expect(call.id).toBe('call_1');
    expect(call.function.name).toBe('edit');
    expect(JSON.parse(call.function.arguments)).toEqual(ARGS);
    expect(res.usage).toMatchObject({
      prompt_tokens: 200,
      completion_tokens: 25,
      prompt_tokens_details: { cached_tokens: 80 },
      completion_tokens_details: { reasoning_tokens: 7 },
    });
  });

  it('chat.completions streaming assembles into the same completion', async () => {
    const stream = openai.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'fix it' }],
      tools: chatTools,
      stream_options: { include_usage: true },
    });
    let text = '';
    stream.on('content', (delta) => {
      text += delta;
    });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(message.content).toBe('Editing now.');
    expect(text).toBe('Editing now.');
    const call = message.tool_calls![0]!;
    if (call.type !== 'function') throw new Error('not a function call');
    expect(call.function.name).toBe('edit');
    expect(JSON.parse(call.function.arguments)).toEqual(ARGS);
    expect(final.usage).toMatchObject({ prompt_tokens: 200, prompt_tokens_details: { cached_tokens: 80 } });
  });

  it('responses.create parses function calls, text and usage', async () => {
    const res = await openai.responses.create({
      model: 'gpt-test',
      input: [{ role: 'user', content: 'fix it' }],
      tools: [
        {
          type: 'function',
          name: 'edit',
          description: 'edit',
          parameters: { type: 'object' },
          strict: false,
        },
      ],
    });
    expect(res.output_text).toBe('Editing now.');
    const call = res.output.find((o) => o.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function call');
    expect(call.call_id).toBe('call_1');
    expect(JSON.parse(call.arguments)).toEqual(ARGS);
    expect(res.usage).toMatchObject({
      input_tokens: 200,
      input_tokens_details: { cached_tokens: 80 },
      output_tokens: 25,
      output_tokens_details: { reasoning_tokens: 7 },
    });
  });

  it('responses streaming ends with the full response', async () => {
    const stream = openai.responses.stream({
      model: 'gpt-test',
      input: [
        { role: 'user', content: 'fix it' },
        { type: 'function_call', call_id: 'call_1', name: 'edit', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'edited' },
      ],
    });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (ev) => deltas.push(ev.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('All done.');
    expect(deltas.join('')).toBe('All done.');
    expect(final.usage?.input_tokens_details.cached_tokens).toBe(80);
  });
});

describe('@anthropic-ai/sdk against the fake provider', () => {
  const tools: Anthropic.Tool[] = [{ name: 'edit', description: 'edit', input_schema: { type: 'object' } }];

  it('messages.create parses tool_use blocks and usage with cache fields', async () => {
    const msg = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'fix it' }],
      tools,
    });
    expect(msg.stop_reason).toBe('tool_use');
    const text = msg.content.find((b) => b.type === 'text');
    const use = msg.content.find((b) => b.type === 'tool_use');
    if (text?.type !== 'text' || use?.type !== 'tool_use') throw new Error('missing blocks');
    expect(text.text).toBe('Editing now.');
    expect(use.id).toBe('call_1');
    expect(use.input).toEqual(ARGS);
    expect(msg.usage).toMatchObject({
      input_tokens: 120,
      cache_read_input_tokens: 80,
      cache_creation_input_tokens: 30,
      output_tokens: 25,
    });
  });

  it('messages.stream assembles the final message', async () => {
    const stream = anthropic.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'fix it' }],
      tools,
    });
    const final = await stream.finalMessage();
    const use = final.content.find((b) => b.type === 'tool_use');
    if (use?.type !== 'tool_use') throw new Error('no tool_use');
    expect(use.input).toEqual(ARGS);
    expect(final.stop_reason).toBe('tool_use');
    expect(final.usage).toMatchObject({ input_tokens: 120, cache_read_input_tokens: 80, output_tokens: 25 });
  });

  it('tool results in the request are understood by the server', async () => {
    const msg = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'edit', input: ARGS }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'edited' }] },
      ],
      tools,
    });
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.content).toEqual([{ type: 'text', text: 'All done.' }]);
  });
});
