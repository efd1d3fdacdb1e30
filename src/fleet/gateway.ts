/**
 * What the owner of a fleet run serves to its workers, over HTTP, each request authenticated by the
 * agent's own token (auth/agent-token.ts) whose session epoch must still be current (fencing):
 *   /git/<run>/hub.git/…                      the hub over git's smart HTTP (workspace/hub-http/server.ts)
 *   POST /fleet/<run>/merge-requests          {commit, note} → the integration queue (enqueue); the
 *                                             answer names the queue's approval mode
 *   GET  /fleet/<run>/merge-requests/<mr>     where it stands; `?wait=1` waits (≤ 20 s) for its outcome
 * The integration queue stays with the owner; a worker's agent reaches it only through these routes,
 * and only in its own name (the branch is the token's agent's).
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type AgentTokenClaims, describeAgentTokenError, verifyAgentToken } from '../auth/index.js';
import { databaseAway } from '../store/database-away.js';
import { presentedAgentToken } from '../workspace/hub-http/auth.js';
import { createHubHttpHandler } from '../workspace/hub-http/server.js';
import type { IntegrationPort } from '../workspace/integration/tools.js';
import type { TlsPair } from './tls.js';

export interface GatewayOptions {
  runId: string;
  hubPath: string;
  secret: Uint8Array;
  queue: IntegrationPort;
  /** Where to listen (default 127.0.0.1, any free port). */
  host?: string;
  port?: number;
  /** Serve HTTPS with this certificate and key (tls.ts); plain HTTP without. */
  tls?: TlsPair;
  /** null when the token's session is still current, else why not (a newer worker took it over). */
  authorize(claims: AgentTokenClaims): Promise<string | null>;
  log?: (line: string) => void;
}

export interface Gateway {
  /** e.g. http://127.0.0.1:41234, or https://… with `tls` */
  url: string;
  hubUrl: string;
  close(): Promise<void>;
}

const WAIT_MS = 20_000;
const DATABASE_AWAY = "the run's database is away for a moment; send it again";
const MAX_JSON_BYTES = 64 * 1024;

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const hub = createHubHttpHandler({
    runs: (runId) =>
      runId === options.runId ? { hubPath: options.hubPath, secret: options.secret } : undefined,
    basePath: '/git',
    authorize: options.authorize,
    log: options.log,
  });
  const handler: RequestListener = (req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/git/')) return hub(req, res);
    if (url.startsWith('/fleet/')) {
      fleetApi(req, res, options).catch((error: unknown) => {
        options.log?.(`gateway: ${(error as Error).message}`);
        if (res.headersSent) res.destroy();
        else if (databaseAway(error)) json(res, 503, { error: DATABASE_AWAY });
        else json(res, 500, { error: 'internal error' });
      });
      return;
    }
    json(res, 404, { error: 'not found' });
  };
  const server = options.tls
    ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, handler)
    : createServer(handler);
  // Long polls and pushes of big packs: no idle cut-off shorter than a wait.
  server.requestTimeout = 0;
  server.keepAliveTimeout = WAIT_MS + 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const base = `${options.tls ? 'https' : 'http'}://${host}:${address.port}`;
  return {
    url: base,
    hubUrl: `${base}/git/${options.runId}/hub.git`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function fleetApi(req: IncomingMessage, res: ServerResponse, options: GatewayOptions): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://gateway.invalid');
  const parts = url.pathname.split('/').filter(Boolean); // fleet, <run>, merge-requests, [mr]
  if (parts[0] !== 'fleet' || parts[2] !== 'merge-requests' || parts.length > 4)
    return json(res, 404, { error: 'not found' });
  const token = presentedAgentToken(req.headers);
  if (token === null) return json(res, 401, { error: 'an agent token is needed (Authorization: Bearer …)' });
  if (parts[1] !== options.runId) return json(res, 401, { error: describeAgentTokenError('bad_signature') });
  const verified = verifyAgentToken(options.secret, token, Date.now());
  if (!verified.ok) return json(res, 401, { error: describeAgentTokenError(verified.error) });
  const claims = verified.value;
  if (claims.runId !== options.runId) return json(res, 401, { error: 'the token is for another run' });
  if (!claims.scopes.includes('mcp'))
    return json(res, 403, { error: 'the token does not allow the coordination tools' });
  const refusal = await options.authorize(claims);
  if (refusal !== null) return json(res, 403, { error: refusal });

  if (parts.length === 3) {
    if (req.method !== 'POST') return json(res, 405, { error: 'method not allowed' });
    const body = await readJson(req);
    if (!body.ok) return json(res, 400, { error: body.error });
    const { commit, note } = body.value as { commit?: unknown; note?: unknown };
    if (typeof commit !== 'string' || !/^[0-9a-f]{40}$/.test(commit))
      return json(res, 400, { error: 'commit must be a 40-hex commit id' });
    if (typeof note !== 'string' || note.trim() === '' || note.length > 2000)
      return json(res, 400, { error: 'note must be 1–2000 characters' });
    const queued = await options.queue.enqueue({
      agent: claims.agent,
      branch: `agent/${claims.agent}`,
      commit,
      note,
      notify: true,
    });
    // The run's database away (a restart): 503, which a worker waits out and sends again (the queue
    // answers a resubmitted tip with its id); a refusal of the request itself is final (409).
    if (!queued.ok && databaseAway(queued.error))
      return json(res, 503, { error: `${DATABASE_AWAY}: ${queued.error}` });
    // Who approves it before it lands: the worker's merge_request tells the agent (the queue's mode).
    return json(res, queued.ok ? 200 : 409, { ...queued, approval: options.queue.approval });
  }
  if (req.method !== 'GET') return json(res, 405, { error: 'method not allowed' });
  const mr = Number(parts[3]);
  if (!Number.isSafeInteger(mr) || mr < 1) return json(res, 400, { error: 'not a merge request id' });
  const status = await options.queue.status(mr);
  if (url.searchParams.get('wait') !== '1' || status.status === 'done' || status.status === 'unknown')
    return json(res, 200, status);
  let timer: NodeJS.Timeout | undefined;
  // The outcome itself, as the queue resolved it (files, verify output): the log's record of a landing
  // does not keep those, so reading the status again would answer a poorer result.
  const outcome = await Promise.race([
    options.queue.outcome(mr),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  return json(res, 200, outcome ? { status: 'done', mr, result: outcome } : status);
}

function readJson(
  req: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_JSON_BYTES) {
        resolve({ ok: false, error: 'body too large' });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        resolve({ ok: false, error: 'the body is not JSON' });
      }
    });
    req.on('error', () => resolve({ ok: false, error: 'the request failed' }));
  });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
