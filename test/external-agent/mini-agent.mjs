// A mini external agent (test/agent-cli): what `--agent-cli 'cmd:node mini-agent.mjs'` runs. Its
// Colony tools come over MCP (the official client SDK, COLONY_MCP_URL with COLONY_AGENT_TOKEN), its
// model turns from the model proxy (the `openai` package: OPENAI_BASE_URL / OPENAI_API_KEY), its own
// tool is `write` (a file in its checkout, the working folder). It prints its final answer, then its
// model usage. MINI_AGENT_CRASH_AFTER=<tool>: the first process (no COLONY_RESTART) kills itself with
// SIGKILL after that tool's call (a crash Colony restarts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';

const env = process.env;
const client = new Client({ name: 'mini-agent', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(env.COLONY_MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${env.COLONY_AGENT_TOKEN}` } },
  }),
);
const { tools } = await client.listTools();
const openai = new OpenAI({ maxRetries: 0 });
const toolDefs = [
  ...tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema },
  })),
  {
    type: 'function',
    function: {
      name: 'write',
      description: 'Write a file of your checkout.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
    },
  },
];
const messages = [
  { role: 'system', content: env.COLONY_SYSTEM_PROMPT },
  { role: 'user', content: env.COLONY_GOAL },
];
const usage = { calls: 0, input: 0, output: 0, tools: [] };
for (let step = 0; step < 40; step++) {
  const res = await openai.chat.completions.create({ model: 'whatever', messages, tools: toolDefs });
  usage.calls++;
  usage.input += res.usage?.prompt_tokens ?? 0;
  usage.output += res.usage?.completion_tokens ?? 0;
  const msg = res.choices[0].message;
  messages.push(msg);
  if (!msg.tool_calls?.length) break;
  for (const call of msg.tool_calls) {
    const args = JSON.parse(call.function.arguments || '{}');
    usage.tools.push(call.function.name);
    let text;
    if (call.function.name === 'write') {
      mkdirSync(dirname(args.path), { recursive: true });
      writeFileSync(args.path, args.content);
      text = `wrote ${args.path}`;
    } else {
      const result = await client.callTool({ name: call.function.name, arguments: args });
      text = result.content.map((c) => c.text ?? '').join('\n');
      if (result.isError) text = `error: ${text}`;
    }
    messages.push({ role: 'tool', tool_call_id: call.id, content: text });
    if (call.function.name === env.MINI_AGENT_CRASH_AFTER && !env.COLONY_RESTART)
      process.kill(process.pid, 'SIGKILL');
  }
}
await client.close();
const answer = messages.at(-1);
if (answer?.role === 'assistant' && answer.content) console.log(answer.content);
console.log(`mini-agent usage ${JSON.stringify(usage)}`);
