/**
 * Responses `namespace` tools (how Codex offers an MCP server's tools: `mcp__colony` holding `claim`):
 * a policy sees them flattened (`mcp__colony__claim`), a call of one is answered with its namespace
 * and short name (whole and streamed), and a call echoed back in the input decodes to the flat name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/model/types.js';
import { type FakeProvider, startFakeProvider } from './server.js';

let fake: FakeProvider;
const seen: ModelRequest[] = [];
beforeAll(async () => {
  fake = await startFakeProvider({
    policy: (request) => {
      seen.push(request);
      return { toolCalls: [{ name: 'mcp__colony__claim', arguments: { scope: 'src/' } }] };
    },
  });
});
afterAll(async () => {
  await fake.close();
});

const tools = [
  { type: 'function', name: 'exec_command', description: 'run', parameters: { type: 'object' } },
  {
    type: 'namespace',
    name: 'mcp__colony',
    description: 'Colony',
    tools: [
      { type: 'function', name: 'claim', description: 'claim a scope', parameters: { type: 'object' } },
    ],
  },
];

async function post(body: unknown): Promise<Response> {
  return fetch(`${fake.url}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('fake provider: Responses namespace tools', () => {
  it('flattens them for the policy and answers a call with its namespace', async () => {
    const res = await post({ model: 'm', input: 'go', tools });
    const body = (await res.json()) as { output: Record<string, unknown>[] };
    expect(seen.at(-1)?.tools.map((t) => t.name)).toEqual(['exec_command', 'mcp__colony__claim']);
    expect(body.output[0]).toMatchObject({
      type: 'function_call',
      namespace: 'mcp__colony',
      name: 'claim',
      arguments: '{"scope":"src/"}',
    });
  });

  it('streams the call with its namespace', async () => {
    const res = await post({ model: 'm', input: 'go', tools, stream: true });
    const done = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; item?: Record<string, unknown> })
      .filter((e) => e.type === 'response.output_item.done');
    expect(done.map((e) => [e.item?.namespace, e.item?.name])).toEqual([['mcp__colony', 'claim']]);
  });

  it('decodes an echoed namespaced call to the flat name', async () => {
    await post({
      model: 'm',
      tools,
      input: [
        { type: 'message', role: 'user', content: 'go' },
        { type: 'function_call', call_id: 'c1', namespace: 'mcp__colony', name: 'claim', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'granted' }] },
      ],
    });
    expect(seen.at(-1)?.messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'mcp__colony__claim', arguments: '{}' }],
      },
      { role: 'tool', toolCallId: 'c1', name: 'mcp__colony__claim', content: 'granted', isError: false },
    ]);
  });
});
