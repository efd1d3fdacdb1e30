/**
 * Colony's tools for one agent over MCP's Streamable HTTP transport: a node:http `(req, res)` handler
 * a host mounts on its own server under a path (default `/mcp`).
 *
 * Stateless, on purpose: every POST carries the agent's bearer token, is verified with the run's
 * secret (and the host's `authorize`) before its body is read, and gets a fresh MCP server whose tools
 * are built for that token's agent. Nothing is keyed by an MCP session id, so a session id can never
 * stand for an identity, an expired or revoked token stops working on its very next request, the host
 * keeps no per-client state (a thousand agents cost nothing between calls) and any process that
 * serves the run can answer. What stateless gives up: server-to-client requests and a standalone SSE
 * stream (GET answers 405, as the transport spec allows), which none of these tools need; answers are
 * plain JSON (`enableJsonResponse`). The price is one small server object per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type AgentTokenClaims, unverifiedTokenRun } from '../auth/index.js';
import type { Tool } from '../tool/types.js';
import { presentedAgentToken } from '../workspace/hub-http/auth.js';
import { checkMcpToken, type McpRefusal, type McpRunAccess } from './identity.js';
import { createToolServer } from './tool-server.js';
import { createWhoamiTool } from './whoami.js';

export type ToolsFor = (claims: AgentTokenClaims) => readonly Tool[] | Promise<readonly Tool[]>;

export interface McpHttpOptions {
  /** The run a token names → its secret; undefined for a run this server does not serve (401). */
  runs(runId: string): McpRunAccess | undefined | Promise<McpRunAccess | undefined>;
  /** The tools of the token's agent (whoami is always added). Called once per request. */
  toolsFor: ToolsFor;
  /** The host's own check of a verified token: null allows, a string refuses (403), e.g. fencing. */
  authorize?(claims: AgentTokenClaims): Promise<string | null>;
  /** Where the handler is mounted (default `/mcp`); other paths get 404. */
  basePath?: string;
  /** Largest request body (default 1 MiB); a bigger one gets 413 before it is parsed. */
  maxBodyBytes?: number;
  instructions?: string;
  /** The clock for token expiry. */
  now?: () => number;
  log?: (line: string) => void;
}

export type McpHttpHandler = (req: IncomingMessage, res: ServerResponse) => void;

export const DEFAULT_MCP_PATH = '/mcp';
export const DEFAULT_MAX_MCP_BODY_BYTES = 1 << 20;

export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const basePath = (options.basePath ?? DEFAULT_MCP_PATH).replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  return (req, res) => {
    serve(req, res).catch((error: unknown) => {
      options.log?.(`mcp: ${(error as Error).message}`);
      if (!res.headersSent) jsonError(res, 500, 'internal error');
      else res.destroy();
    });
  };

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://mcp.invalid').pathname.replace(/\/+$/, '');
    if (path !== basePath) return jsonError(res, 404, 'not found');
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return jsonError(res, 405, 'this MCP server is stateless: POST only (no SSE stream, no session)');
    }
    const who = await authenticate(req);
    if (!who.ok) return refuse(res, who.error);
    const claims = who.value;
    const tools = [createWhoamiTool(claims, now), ...(await options.toolsFor(claims))];
    const server = createToolServer(
      tools,
      options.instructions ? { instructions: options.instructions } : {},
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: options.maxBodyBytes ?? DEFAULT_MAX_MCP_BODY_BYTES,
    });
    // A client that goes away aborts the calls in flight (their tools see the signal).
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  async function authenticate(req: IncomingMessage) {
    const token = presentedAgentToken(req.headers);
    const runId = token === null ? null : unverifiedTokenRun(token);
    const run = runId === null ? undefined : await options.runs(runId);
    const checked = checkMcpToken(token, run, now());
    if (!checked.ok || !options.authorize) return checked;
    const refusal = await options.authorize(checked.value);
    return refusal === null
      ? checked
      : { ok: false as const, error: { status: 403 as const, message: refusal } satisfies McpRefusal };
  }
}

function refuse(res: ServerResponse, refusal: McpRefusal): void {
  const code = refusal.status === 401 ? 'invalid_token' : 'insufficient_scope';
  // A header value is printable ASCII: the description drops anything else (the body has it all).
  const description = refusal.message.replace(/[^\x20-\x7e]|["\\]/g, '');
  res.setHeader(
    'www-authenticate',
    `Bearer realm="colony", error="${code}", error_description="${description}"`,
  );
  jsonError(res, refusal.status, refusal.message);
}

/** A JSON-RPC error body (what MCP clients print) with the HTTP status. */
function jsonError(res: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
