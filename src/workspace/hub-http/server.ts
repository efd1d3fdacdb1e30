/**
 * A run's hub over git's smart HTTP protocol, for agents on other machines and external agent CLIs
 * (issues 13, 14): `git clone http://host/<base>/<run-id>/hub.git`, authenticated per request by the
 * agent's token (auth/agent-token.ts). An agent sees main and its own refs and may push only its own
 * (hub-http-refs.ts); git's own `http-backend` does the protocol work, one process per request
 * (hub-http-cgi.ts). Not wired into runs yet: a caller mounts `createHubHttpHandler` on its server
 * (docs/hub-http.md).
 *
 * Routes (below `basePath`), nothing else — in particular no dumb-HTTP file access:
 *   GET  /<run>/hub.git/info/refs?service=git-upload-pack|git-receive-pack
 *   POST /<run>/hub.git/git-upload-pack
 *   POST /<run>/hub.git/git-receive-pack
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentTokenClaims, isSafeRunId } from '../../auth/index.js';
import { clearDeadRefLock } from '../git/stale-locks.js';
import { authenticateHubRequest } from './auth.js';
import { BodyTooLarge, readPrefix, requestBody } from './body.js';
import { type CgiRequest, runHttpBackend } from './cgi.js';
import { parseCommandList, refusalReport } from './pkt.js';
import { refusalOf } from './refs.js';

export interface HubHttpRun {
  hubPath: string;
  /** The run's token secret; replacing it revokes every token of the run. */
  secret: Uint8Array;
}

export interface HubHttpOptions {
  /** The hub and token secret of a run, or undefined when this server does not serve it. */
  runs: (runId: string) => HubHttpRun | undefined;
  /** Where the handler is mounted, e.g. `/git` (default: the root). */
  basePath?: string;
  /** Largest request body, after gzip decoding (default 512 MiB). */
  maxBodyBytes?: number;
  /** Clock for token expiry (default Date.now). */
  now?: () => number;
  /**
   * A further check of an authenticated agent (fleet fencing: is the token's session epoch still the
   * current one?): null to go on, else why not (answered 403). Default: none.
   */
  authorize?: (claims: AgentTokenClaims) => Promise<string | null>;
  /** A lock on a pushed ref this old has no live holder and is removed (default REF_LOCK_DEAD_MS). */
  refLockDeadMs?: number;
  /** Told about failed backends and refused requests (a server log). */
  log?: (line: string) => void;
}

export const DEFAULT_MAX_BODY_BYTES = 512 * 1024 * 1024;
/** The ref updates at the start of a push are small; this bounds what is buffered to check them. */
const MAX_COMMAND_LIST_BYTES = 1024 * 1024;
const REALM = 'colony hub';

type Service = 'git-upload-pack' | 'git-receive-pack';
interface Route {
  runId: string;
  pathInRepo: string;
  service: Service;
  rpc: boolean;
}

export function createHubHttpHandler(options: HubHttpOptions): RequestListener {
  return (req, res) => {
    handle(req, res, options).catch((error: unknown) => {
      options.log?.(`hub http: ${(error as Error).message}`);
      if (!res.headersSent) plain(res, 500, 'internal error');
      else res.destroy();
    });
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: HubHttpOptions): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://hub.invalid');
  const route = routeOf(url, options.basePath ?? '');
  if (!route) return plain(res, 404, 'not a hub URL');
  if (req.method !== (route.rpc ? 'POST' : 'GET')) return plain(res, 405, 'method not allowed');

  const run = options.runs(route.runId);
  const auth = authenticateHubRequest(
    req.headers,
    run ? { runId: route.runId, secret: run.secret } : undefined,
    (options.now ?? Date.now)(),
  );
  if (!auth.ok || !run) return unauthorized(res, auth.ok ? 'unknown run' : auth.error);
  const agent = auth.value.agent;
  const refusal = options.authorize ? await options.authorize(auth.value) : null;
  if (refusal !== null) return plain(res, 403, refusal);

  const cgi: CgiRequest = {
    hubPath: run.hubPath,
    pathInRepo: route.pathInRepo,
    method: req.method,
    query: route.rpc ? '' : `service=${route.service}`,
    contentType: req.headers['content-type'] ?? '',
    agent,
    remoteAddress: req.socket.remoteAddress ?? '',
  };
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const failure: { error?: Error } = {};
  const backend = async (input: Parameters<typeof runHttpBackend>[2]) => {
    const { code, stderr, answered } = await runHttpBackend(cgi, res, input);
    if (code !== 0) options.log?.(`hub http: ${route.service} for ${route.runId} exited ${code}: ${stderr}`);
    if (failure.error) answerBodyError(res, failure.error, maxBytes);
    else if (!answered) plain(res, 500, 'git http-backend failed');
  };
  if (!route.rpc) return backend({});

  if (Number(req.headers['content-length'] ?? 0) > maxBytes) return tooLarge(res, maxBytes);
  const body = requestBody(req, maxBytes);
  if (!body.ok) return plain(res, 415, body.error);
  body.value.on('error', (error) => {
    failure.error = error;
  });

  if (route.service === 'git-upload-pack') return backend({ body: body.value });

  // A push: read the ref updates first and decide before git sees any of it.
  const prefix = await readPrefix(
    body.value,
    (data) => parseCommandList(data).kind !== 'incomplete',
    MAX_COMMAND_LIST_BYTES,
  );
  if (!prefix.ok) return answerBodyError(res, prefix.error, maxBytes);
  const commands = parseCommandList(prefix.value.data);
  if (commands.kind !== 'complete')
    return plain(res, 400, commands.kind === 'invalid' ? commands.error : 'the push ended early');
  const refused = commands.updates.map((update) => ({ ref: update.ref, reason: refusalOf(agent, update) }));
  if (refused.every((r) => r.reason === null)) {
    for (const update of commands.updates) {
      const removed = await clearDeadRefLock(run.hubPath, update.ref, { deadAfterMs: options.refLockDeadMs });
      if (removed) options.log?.(`hub http: removed a dead lock on ${update.ref} (its holder died mid-push)`);
    }
    return backend({ prefix: prefix.value.data, body: body.value, bodyEnded: prefix.value.ended });
  }

  options.log?.(`hub http: refused a push by ${agent}: ${refused.map((r) => r.ref).join(', ')}`);
  // Read (and drop) the rest of the body before answering: git reads the answer only after sending.
  const drained = prefix.value.ended ? null : await drain(body.value);
  if (drained) return answerBodyError(res, drained, maxBytes);
  const reasons = refused.map(({ ref, reason }) => ({
    ref,
    reason: reason ?? 'refused with the other updates',
  }));
  const message = `colony: ${refused.find((r) => r.reason !== null)?.reason}`;
  if (!commands.capabilities.some((c) => c === 'report-status' || c === 'report-status-v2'))
    return plain(res, 403, message);
  res.writeHead(200, {
    'content-type': 'application/x-git-receive-pack-result',
    'cache-control': 'no-cache',
  });
  res.end(refusalReport(reasons, commands.capabilities, message));
}

function routeOf(url: URL, basePath: string): Route | null {
  const base = basePath.replace(/\/+$/, '');
  if (base !== '' && !url.pathname.startsWith(`${base}/`)) return null;
  const match = /^\/([^/]+)\/hub\.git(\/info\/refs|\/git-upload-pack|\/git-receive-pack)$/.exec(
    url.pathname.slice(base.length),
  );
  const runId = match?.[1];
  const pathInRepo = match?.[2];
  if (!runId || !pathInRepo || !isSafeRunId(runId)) return null;
  if (pathInRepo === '/info/refs') {
    const service = url.searchParams.get('service');
    if (service !== 'git-upload-pack' && service !== 'git-receive-pack') return null;
    return { runId, pathInRepo, service, rpc: false };
  }
  return { runId, pathInRepo, service: pathInRepo.slice(1) as Service, rpc: true };
}

function drain(body: NodeJS.ReadableStream): Promise<Error | null> {
  return new Promise((resolve) => {
    body.on('error', resolve);
    body.on('end', () => resolve(null));
    body.resume();
  });
}

function answerBodyError(res: ServerResponse, error: Error, maxBytes: number): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof BodyTooLarge) tooLarge(res, maxBytes);
  else plain(res, 400, `could not read the request: ${error.message}`);
}

function tooLarge(res: ServerResponse, maxBytes: number): void {
  // The client may still be sending: close the connection rather than read the rest.
  res.setHeader('connection', 'close');
  plain(res, 413, `the request body is larger than ${maxBytes} bytes`);
}

function unauthorized(res: ServerResponse, reason: string): void {
  res.setHeader('www-authenticate', [
    `Basic realm="${REALM}"`,
    `Bearer realm="${REALM}", error="invalid_token"`,
  ]);
  plain(res, 401, reason);
}

function plain(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' });
  res.end(`${message}\n`);
}

export interface HubHttpServer {
  /** `http://127.0.0.1:<port><basePath>`: append `/<run-id>/hub.git`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A server with only the hub handler (tests, benchmarks); real servers mount the handler. */
export function startHubHttpServer(
  options: HubHttpOptions & { host?: string; port?: number },
): Promise<HubHttpServer> {
  const server = createServer(createHubHttpHandler(options));
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${host}:${port}${(options.basePath ?? '').replace(/\/+$/, '')}`,
        port,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
