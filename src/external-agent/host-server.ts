/**
 * The host side of external agent CLIs in one process: one 127.0.0.1 HTTP server (started on first
 * use, one per process) that serves the MCP tools of the agents this process hosts at `/mcp` and the
 * metering model proxy at `/model`, and the same handler on a unix socket that sandboxed CLIs reach
 * through a forwarder (forwarder.ts). Runs register while they host CLI-driven peers: the run's
 * token secret (kept in memory), what the proxy needs of it and each agent's Colony tools.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpHttpHandler } from '../mcp/index.js';
import { createModelProxyHandler, type ModelProxyRun } from '../proxy/index.js';
import type { Tool } from '../tool/types.js';

export const MCP_PATH = '/mcp';
export const MODEL_PATH = '/model';

/** What the server needs of one run: its proxy access (secret included) and its agents' tools. */
export interface HostedRun {
  proxy: ModelProxyRun;
  /** The Colony tools of an agent this process hosts now (undefined: none are served). */
  toolsOf(agent: string): readonly Tool[] | undefined;
}

export interface AgentCliServerAddress {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** The unix socket serving the same (for sandboxed CLIs). */
  socket: string;
}

export class AgentCliServer {
  private readonly runs = new Map<string, HostedRun>();
  private started: Promise<{ address: AgentCliServerAddress; servers: Server[]; dir: string }> | null = null;

  register(run: HostedRun): () => void {
    this.runs.set(run.proxy.runId, run);
    return () => {
      if (this.runs.get(run.proxy.runId) === run) this.runs.delete(run.proxy.runId);
    };
  }

  hosted(runId: string): HostedRun | undefined {
    return this.runs.get(runId);
  }

  /** The server's addresses (started on first call). */
  async address(): Promise<AgentCliServerAddress> {
    this.started ??= this.start();
    return (await this.started).address;
  }

  async close(): Promise<void> {
    const started = this.started;
    this.started = null;
    if (!started) return;
    const { servers, dir } = await started;
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    rmSync(dir, { recursive: true, force: true });
  }

  private async start(): Promise<{ address: AgentCliServerAddress; servers: Server[]; dir: string }> {
    const mcp = createMcpHttpHandler({
      runs: (runId) => {
        const run = this.runs.get(runId);
        return run ? { runId, secret: run.proxy.secret } : undefined;
      },
      toolsFor: (claims) => this.runs.get(claims.runId)?.toolsOf(claims.agent) ?? [],
      authorize: async (claims) =>
        this.runs.get(claims.runId)?.toolsOf(claims.agent)
          ? null
          : `agent ${claims.agent} is not hosted by this process now`,
      basePath: MCP_PATH,
    });
    const proxy = createModelProxyHandler({
      runs: (runId) => this.runs.get(runId)?.proxy,
      basePath: MODEL_PATH,
    });
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const path = req.url ?? '';
      if (path === MCP_PATH || path.startsWith(`${MCP_PATH}/`) || path.startsWith(`${MCP_PATH}?`))
        return void mcp(req, res);
      if (path.startsWith(`${MODEL_PATH}/`)) return void proxy(req, res);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    };
    const tcp = createServer(handler);
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, '127.0.0.1', () => resolve());
    });
    tcp.unref();
    // A folder of our own (0700 by mkdtemp) for the socket: only this user can connect.
    const dir = mkdtempSync(join(tmpdir(), 'colony-cli-'));
    const socket = join(dir, 'host.sock');
    const local = createServer(handler);
    await new Promise<void>((resolve, reject) => {
      local.once('error', reject);
      local.listen(socket, () => resolve());
    });
    local.unref();
    const { port } = tcp.address() as AddressInfo;
    return { address: { url: `http://127.0.0.1:${port}`, port, socket }, servers: [tcp, local], dir };
  }
}

let shared: AgentCliServer | null = null;

/** This process's server (one per process, started lazily on the first address()). */
export function agentCliServer(): AgentCliServer {
  shared ??= new AgentCliServer();
  return shared;
}
