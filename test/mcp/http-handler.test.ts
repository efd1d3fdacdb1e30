/**
 * The MCP server over Streamable HTTP, with the official client SDK against a real server on
 * 127.0.0.1 and the real Postgres store: every tool listed and callable in the token's agent's name,
 * identity from the token on every request (other run, expired, missing, garbled, no mcp scope,
 * the host's refusal), bad arguments as tool errors, bounded bodies.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentTokenScope, createRunSecret, issueAgentToken } from '../../src/auth/index.js';
import { type Coordination, createCoordination } from '../../src/coord/index.js';
import { ok } from '../../src/lang/result.js';
import { createMcpHttpHandler, mcpAgentTools } from '../../src/mcp/index.js';
import type { Store } from '../../src/store/index.js';
import type { IntegrationPort } from '../../src/workspace/integration/tools.js';
import type { MergeRequestInput } from '../../src/workspace/integration/types.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { COORDINATION_TOOLS, call } from './mcp-client.js';

const HOUR = 3_600_000;
let store: Store;
let coord: Coordination;
let server: Server;
let url: string;
let worktree: string;
const runId = testRunId('mcp');
const secret = createRunSecret();
/** The handler's clock: tests move it to expire a token between two requests. */
let clockOffset = 0;
const now = () => Date.now() + clockOffset;
const enqueued: MergeRequestInput[] = [];
const fenced = new Set<string>();

const fakeQueue: IntegrationPort = {
  approval: 'auto',
  async enqueue(input) {
    enqueued.push(input);
    return { ok: true, mr: enqueued.length, commit: input.commit ?? '' };
  },
  async status(mr) {
    return mr <= enqueued.length ? { status: 'queued', mr, ahead: 0 } : { status: 'unknown', mr };
  },
  outcome: () => new Promise(() => {}),
  reply: () => new Promise(() => {}),
};

function token(
  agent: string,
  options: { scopes?: AgentTokenScope[]; expiresAt?: number; run?: string } = {},
) {
  return issueAgentToken(secret, {
    runId: options.run ?? runId,
    agent,
    expiresAt: options.expiresAt ?? Date.now() + HOUR,
    ...(options.scopes ? { scopes: options.scopes } : {}),
  });
}

const clients: Client[] = [];
async function connect(bearer: string): Promise<Client> {
  const client = new Client({ name: 'colony-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A raw POST of an initialize request (to see statuses and bodies the client hides). */
function rawPost(headers: Record<string, string>, body?: string) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body:
      body ??
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      }),
  });
}

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
  worktree = mkdtempSync(join(tmpdir(), 'colony-mcp-wt-'));
  execFileSync('git', ['init', '-q', '-b', 'main', worktree]);
  const handler = createMcpHttpHandler({
    runs: (id) => (id === runId ? { runId, secret } : undefined),
    toolsFor: mcpAgentTools({
      coord,
      integrationFor: async (claims) =>
        ok({
          runId: claims.runId,
          agent: claims.agent,
          worktree,
          branch: `agent/${claims.agent}`,
          publish: async () => ok('c'.repeat(40)),
          queue: fakeQueue,
          hubPath: worktree,
          log: store.log,
          submitAndMoveOn: true,
        }),
    }),
    authorize: async (claims) => (fenced.has(claims.agent) ? `${claims.agent} was taken over` : null),
    now,
    maxBodyBytes: 64 * 1024,
  });
  server = createServer((req, res) => {
    if (req.url?.startsWith('/mcp')) return handler(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await coord.close();
  await store.close();
  rmSync(worktree, { recursive: true, force: true });
});

describe("MCP over HTTP: the tools of the token's agent", () => {
  it('lists whoami, the coordination tools and the merge tools with their JSON schemas', async () => {
    const a = await connect(token('peer-a'));
    const { tools } = await a.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['whoami', ...COORDINATION_TOOLS, 'merge_request', 'merge_status', 'sync'].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(10);
    }
    const claim = tools.find((t) => t.name === 'claim');
    expect(Object.keys(claim?.inputSchema.properties ?? {}).sort()).toEqual(['scope', 'summary']);
  });

  it('whoami answers the agent, the run and the token expiry', async () => {
    const expiresAt = Date.now() + HOUR;
    const a = await connect(token('peer-a', { expiresAt }));
    const me = await call(a, 'whoami');
    expect(me.isError).toBe(false);
    const answer = JSON.parse(me.text) as Record<string, unknown>;
    expect(answer).toMatchObject({
      agent: 'peer-a',
      run: runId,
      expiresAt: new Date(expiresAt).toISOString(),
    });
    expect(answer.expiresInSeconds).toBeGreaterThan(3500);
  });

  it('claim grants to A; B conflicts with A as holder, even when A tries to name B', async () => {
    const a = await connect(token('peer-a'));
    const b = await connect(token('peer-b'));
    // An extra `agent` argument is ignored: the tools are built for the token's agent.
    const granted = await call(a, 'claim', {
      scope: 'src/parser/',
      summary: 'rewrite the lexer',
      agent: 'peer-b',
    });
    expect(granted).toMatchObject({ isError: false });
    expect(granted.text).toMatch(/^Granted: you hold src\/parser\//);
    const conflict = await call(b, 'claim', { scope: 'src/parser/lexer.ts', summary: 'fix a bug' });
    expect(conflict.text).toMatch(/^Conflict: peer-a holds src\/parser\//);
    const released = await call(a, 'release', { scope: 'src/parser/', outcome: 'done: lexer rewritten' });
    expect(released.isError).toBe(false);
    expect((await call(b, 'claim', { scope: 'src/parser/lexer.ts', summary: 'fix a bug' })).text).toMatch(
      /^Granted/,
    );
  });

  it('context_post by A reaches B through context_read, and context_unfold shows the detail', async () => {
    const a = await connect(token('peer-a'));
    const b = await connect(token('peer-b'));
    const posted = await call(a, 'context_post', {
      kind: 'FACT',
      summary: 'the tokenizer keeps CRLF',
      detail: 'seen in src/tokenizer.ts line 12',
    });
    expect(posted.text).toMatch(/^Posted #\d+ \(FACT\)/);
    const id = Number(/#(\d+)/.exec(posted.text)?.[1]);
    const read = await call(b, 'context_read', { kinds: ['FACT'] });
    expect(read.text).toContain('the tokenizer keeps CRLF');
    expect(read.text).toContain('peer-a');
    const unfolded = await call(b, 'context_unfold', { id });
    expect(unfolded.text).toContain('seen in src/tokenizer.ts line 12');
  });

  it("message_send from A arrives in B's message_read, from A", async () => {
    const a = await connect(token('peer-a'));
    const b = await connect(token('peer-b'));
    expect((await call(a, 'message_send', { to: 'peer-b', text: 'I take the parser' })).isError).toBe(false);
    const read = await call(b, 'message_read');
    expect(read.text).toContain('I take the parser');
    expect(read.text).toContain('peer-a');
    expect((await call(b, 'message_read')).text).toBe('No unread messages.');
  });

  it('tasks_add, tasks_ready and claim_next', async () => {
    const a = await connect(token('peer-a'));
    const b = await connect(token('peer-b'));
    const added = await call(a, 'tasks_add', {
      tasks: [{ title: 'port the docs', scope: 'docs/', key: 'docs' }],
    });
    expect(added.isError).toBe(false);
    expect((await call(b, 'tasks_ready')).text).toContain('port the docs');
    const next = await call(b, 'claim_next');
    expect(next.text).toMatch(/^Task #\d+: port the docs/);
    expect((await call(a, 'claim', { scope: 'docs/index.md', summary: 'typo' })).text).toMatch(
      /^Conflict: peer-b holds docs\//,
    );
  });

  it("merge_request and merge_status reach the queue in the token's agent's name", async () => {
    const a = await connect(token('peer-a'));
    writeFileSync(join(worktree, 'a.txt'), 'from a\n');
    const requested = await call(a, 'merge_request', { note: 'add a.txt' });
    expect(requested).toMatchObject({ isError: false });
    expect(requested.text).toMatch(/^Merge request \d+ is queued/);
    expect(enqueued.at(-1)).toMatchObject({ agent: 'peer-a', branch: 'agent/peer-a', note: 'add a.txt' });
    const mr = enqueued.length;
    expect((await call(a, 'merge_status', { mr })).text).toBe(
      `Merge request ${mr} is queued; 0 ahead of it.`,
    );
  });

  it('bad arguments are tool errors, an unknown tool a protocol error; the server goes on', async () => {
    const a = await connect(token('peer-a'));
    const bad = await call(a, 'claim', { scope: 42 });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^Invalid arguments for claim:/);
    expect((await call(a, 'sync', { merge: 'yes' })).isError).toBe(true);
    expect((await call(a, 'context_post', { kind: 'FACT', summary: 'x'.repeat(300) })).text).toMatch(
      /limit is 200/,
    );
    const unknown = await a.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown).toMatchObject({ code: ErrorCode.InvalidParams });
    // The code once (issue 33): it read "MCP error -32602: MCP error -32602: unknown tool …".
    expect((unknown as Error).message).toMatch(
      /^MCP error -32602: unknown tool no_such_tool \(tools: whoami, /,
    );
    expect((await call(a, 'whoami')).isError).toBe(false);
  });
});

describe('MCP over HTTP: identity from the token, on every request', () => {
  it('refuses a missing, garbled or wrong-scheme token with 401 and a clear message', async () => {
    const missing = await rawPost({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer realm="colony", error="invalid_token"/);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(
      /needs an agent token: Authorization: Bearer colony_at_/,
    );
    const garbled = await rawPost({ authorization: 'Bearer colony_at_garbage' });
    expect(garbled.status).toBe(401);
    expect(await garbled.text()).toContain('not a Colony agent token');
    const tampered = token('peer-a').slice(0, -2);
    expect((await rawPost({ authorization: `Bearer ${tampered}` })).status).toBe(401);
    await expect(connect('colony_at_garbage')).rejects.toThrow(
      /401.*not a Colony agent token|not a Colony agent token/,
    );
  });

  it("refuses another run's token (its own secret, or this secret under another run id)", async () => {
    const otherSecret = createRunSecret();
    const foreign = issueAgentToken(otherSecret, { runId, agent: 'peer-a', expiresAt: Date.now() + HOUR });
    const other = await rawPost({ authorization: `Bearer ${foreign}` });
    expect(other.status).toBe(401);
    expect(await other.text()).toContain('not issued for this run');
    const elsewhere = token('peer-a', { run: testRunId('other') });
    expect((await rawPost({ authorization: `Bearer ${elsewhere}` })).status).toBe(401);
    await expect(connect(foreign)).rejects.toThrow(/not issued for this run/);
  });

  it('refuses an expired token, and a token that expires between two requests of one client', async () => {
    const expired = await rawPost({
      authorization: `Bearer ${token('peer-a', { expiresAt: Date.now() - 1 })}`,
    });
    expect(expired.status).toBe(401);
    expect(await expired.text()).toContain('the token has expired');
    const a = await connect(token('peer-a', { expiresAt: Date.now() + 60_000 }));
    expect((await call(a, 'whoami')).isError).toBe(false);
    clockOffset = 120_000;
    try {
      await expect(call(a, 'whoami')).rejects.toThrow(/401.*the token has expired|the token has expired/);
    } finally {
      clockOffset = 0;
    }
  });

  it("needs the mcp scope (403) and honours the host's refusal (403)", async () => {
    const gitOnly = await rawPost({ authorization: `Bearer ${token('peer-a', { scopes: ['git'] })}` });
    expect(gitOnly.status).toBe(403);
    expect(gitOnly.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(await gitOnly.text()).toContain('lacks the mcp scope');
    expect((await rawPost({ authorization: `Bearer ${token('peer-a', { scopes: ['mcp'] })}` })).status).toBe(
      200,
    );
    fenced.add('peer-c');
    try {
      const refused = await rawPost({ authorization: `Bearer ${token('peer-c')}` });
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('peer-c was taken over');
    } finally {
      fenced.delete('peer-c');
    }
  });

  it('bounds request bodies (413), answers 405 to GET and 404 elsewhere', async () => {
    const auth = { authorization: `Bearer ${token('peer-a')}` };
    const big = await rawPost(
      auth,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', pad: 'x'.repeat(100_000) }),
    );
    expect(big.status).toBe(413);
    const get = await fetch(`${url}/mcp`, { headers: auth });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await fetch(`${url}/mcp/else`, { method: 'POST', headers: auth })).status).toBe(404);
  });
});
