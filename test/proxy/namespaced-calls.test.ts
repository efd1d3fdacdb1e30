/**
 * Responses `namespace` tool calls (Codex's MCP tools) are logged as `<namespace>__<name>`, the
 * name Claude Code gives the same tool; plain function calls keep their names. Whole bodies and
 * streams (the terminal event repeats every item) alike.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeResponsesResponse,
  responsesStreamAccumulator,
} from '../../src/model/providers/openai-responses.js';
import { namespacedAccumulator, namespacedDecode } from '../../src/proxy/namespaced-calls.js';

const response = {
  id: 'resp_1',
  status: 'completed',
  output: [
    { type: 'function_call', call_id: 'c1', namespace: 'mcp__colony', name: 'claim', arguments: '{}' },
    { type: 'function_call', call_id: 'c2', name: 'exec_command', arguments: '{"cmd":"ls"}' },
  ],
  usage: { input_tokens: 10, output_tokens: 2 },
};

const names = (result: ReturnType<ReturnType<typeof namespacedDecode>>) =>
  result.ok ? result.value.toolCalls.map((c) => c.name) : result.error.message;

describe('namespaced Responses calls in the proxy log', () => {
  it('a whole body: mcp__colony__claim beside exec_command', () => {
    expect(names(decodeResponsesResponse(response))).toEqual(['claim', 'exec_command']);
    expect(names(namespacedDecode(decodeResponsesResponse)(response))).toEqual([
      'mcp__colony__claim',
      'exec_command',
    ]);
  });

  it('a stream: the same names', () => {
    const acc = namespacedAccumulator(responsesStreamAccumulator());
    const item = response.output[0];
    for (const data of [
      { type: 'response.output_item.done', item },
      { type: 'response.completed', response },
    ])
      expect(acc.event({ event: data.type, data: JSON.stringify(data) })).toBeUndefined();
    expect(names(acc.finish())).toEqual(['mcp__colony__claim', 'exec_command']);
  });
});
