/**
 * `colony serve`'s HTTP server (node:http): the JSON API, the SSE stream and the dashboard.
 * `createRequestHandler` is the whole server minus the socket, so tests drive it directly.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Coordination } from '../coord/index.js';
import type { Store } from '../store/index.js';
import { decideAccess, isLoopbackHost } from './access.js';
import { createCoordination, matchApi } from './api.js';
import { sendError } from './http-util.js';
import { NeedsYou } from './needs-you.js';
import { RunTracker } from './run-tracker.js';
import { type SseLimits, type SseStats, SseStreams } from './sse.js';
import { resolveStatic, serveStatic } from './static.js';

export interface ServerOptions {
  store: Store;
  token: string;
  /** The host the server binds to (decides the access rule). */
  host: string;
  /** Poll interval of watched runs (default 250 ms). */
  pollMs?: number;
  /** API reads and the event stream need the token on loopback too (`--token-for-reads`). */
  tokenForReads?: boolean;
  /** The SSE streams' cap and per-client bounds (sse.ts). */
  sse?: SseLimits;
}

export interface ServerStats {
  sse: SseStats;
}

export interface RequestHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
  stats(): ServerStats;
}

export function createRequestHandler(options: ServerOptions): RequestHandler {
  const tracker = new RunTracker(options.store.log, { pollMs: options.pollMs });
  const streams = new SseStreams(options.sse);
  let coordination: Promise<Coordination> | null = null;
  const deps = {
    store: options.store,
    tracker,
    needsYou: new NeedsYou(options.store),
    streams,
    coordination: () => {
      coordination ??= createCoordination(options.store);
      return coordination;
    },
    token: options.token,
    env: process.env,
  };
  const policy = {
    token: options.token,
    bindHost: options.host,
    readsNeedToken: options.tokenForReads === true,
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const mutating = method !== 'GET' && method !== 'HEAD';
    const access = decideAccess(policy, req, url, mutating);
    if (!access.ok) {
      res.setHeader('www-authenticate', 'Bearer realm="colony"');
      return sendError(res, access.status, access.error);
    }
    if (url.pathname.startsWith('/api/')) {
      const match = matchApi(method, url.pathname);
      if ('status' in match) return sendError(res, match.status, `no ${method} ${url.pathname}`);
      await match.handler(req, res, url, match.params, deps);
      return;
    }
    if (mutating) return sendError(res, 405, `no ${method} ${url.pathname}`);
    const file = resolveStatic(url.pathname);
    if (!file) return sendError(res, 404, `no ${url.pathname}`);
    await serveStatic(res, file, method === 'HEAD');
  };

  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, (err as Error).message ?? String(err));
      else res.end();
    });
  }) as RequestHandler;
  handler.stats = () => ({ sse: streams.stats() });
  handler.close = async () => {
    tracker.close();
    if (coordination) await (await coordination).close();
  };
  return handler;
}

export interface RunningServer {
  url: string;
  port: number;
  host: string;
  /** What the server holds now (open streams, their buffered bytes). */
  stats(): ServerStats;
  close(): Promise<void>;
}

export type StartResult = { ok: true; server: RunningServer } | { ok: false; error: string };

/** Binds the server; `port: 0` picks a free port. */
export function startServer(options: ServerOptions & { port: number }): Promise<StartResult> {
  const handler = createRequestHandler(options);
  const server = http.createServer(handler);
  server.keepAliveTimeout = 5000;
  return new Promise((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      void handler.close();
      resolve({
        ok: false,
        error:
          err.code === 'EADDRINUSE'
            ? `port ${options.port} on ${options.host} is in use (try --port)`
            : `cannot listen on ${options.host}:${options.port}: ${err.message}`,
      });
    });
    server.listen(options.port, options.host, () => {
      const port = (server.address() as AddressInfo).port;
      const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
      resolve({
        ok: true,
        server: {
          url: `http://${shown}:${port}`,
          port,
          host: options.host,
          stats: () => handler.stats(),
          close: async () => {
            await handler.close();
            server.closeAllConnections();
            await new Promise<void>((done) => server.close(() => done()));
          },
        },
      });
    });
  });
}

export { isLoopbackHost };
