/** What each provider puts on the wire for a neutral request (prompt caching, token limits). */
import { describe, expect, it } from 'vitest';
import { anthropicRequestBody } from '../../../src/model/providers/anthropic.js';
import { chatRequestBody } from '../../../src/model/providers/openai-chat.js';
import { responsesRequestBody } from '../../../src/model/providers/openai-responses.js';
import type { ModelRecord, ModelRequest } from '../../../src/model/types.js';

const model: ModelRecord = {
  id: 'm',
  protocol: 'anthropic',
  name: 'm',
  contextWindow: 1000,
  maxOutput: 64,
  prices: null,
};
const request: ModelRequest = {
  system: 'sys',
  tools: [
    { name: 'read', description: 'r', parameters: { type: 'object' } },
    { name: 'ls', description: 'l', parameters: { type: 'object' } },
  ],
  messages: [
    { role: 'user', content: 'task' },
    { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'ls', arguments: '{}' }] },
    { role: 'tool', toolCallId: 't1', name: 'ls', content: 'a.ts', isError: true },
    { role: 'user', content: 'keep going' },
  ],
  stablePrefixMessages: 1,
};

describe('anthropic request body', () => {
  it('marks the last tool, the system prompt, the stable prefix and the last message as cache breakpoints', () => {
    const body = anthropicRequestBody(model, request, false);
    const json = JSON.parse(JSON.stringify(body));
    expect(json.system).toEqual([{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }]);
    expect(json.tools[0].cache_control).toBeUndefined();
    expect(json.tools[1].cache_control).toEqual({ type: 'ephemeral' });
    expect(json.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'task', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'a.ts', is_error: true },
          { type: 'text', text: 'keep going', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(4);
    expect(json.max_tokens).toBe(64);
  });
});

describe('openai request bodies', () => {
  it('chat: system first, tool calls and results, stream usage requested', () => {
    const body = chatRequestBody(
      { ...model, protocol: 'openai-chat' },
      { ...request, maxOutput: 10 },
      'max_tokens',
      true,
    );
    expect(body.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'task' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 't1', content: 'a.ts' },
      { role: 'user', content: 'keep going' },
    ]);
    expect(body).toMatchObject({ max_tokens: 10, stream: true, stream_options: { include_usage: true } });
  });
  it('responses: stateless input items with instructions', () => {
    const body = responsesRequestBody({ ...model, protocol: 'openai-responses' }, request, false);
    expect(body).toMatchObject({ instructions: 'sys', store: false, max_output_tokens: 64 });
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: 'task' },
      { type: 'function_call', call_id: 't1', name: 'ls', arguments: '{}' },
      { type: 'function_call_output', call_id: 't1', output: 'a.ts' },
      { type: 'message', role: 'user', content: 'keep going' },
    ]);
    expect(body.stream).toBeUndefined();
  });
});
