/**
 * The metering model proxy (issue 14): external agent CLIs (Claude Code, Codex, OpenAI-compatible
 * ones) run as Colony agents send their model traffic here instead of to a vendor. Each request is
 * authenticated by the agent's own token, refused when the run's budget is spent, forwarded to the
 * model the run gives that agent (whatever model the client names) with the real key, through the
 * run's rate gate (only the fields, header values and client-side tools it knows: allow-list.ts), and
 * its answer is passed on as it arrives while a copy is read for usage, text,
 * tool calls and stop reason. Every completed call is logged as the same `model.response` a built-in
 * agent logs; upstream failures as `model.error`. docs/proxy.md.
 *
 * Routes (below `basePath`): POST /v1/messages (Anthropic), /v1/chat/completions, /v1/responses
 * (OpenAI); the same without /v1.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Budget, budgetHitText } from '../agent/budget.js';
import type { AgentTokenClaims } from '../auth/index.js';
import { createScrubber, type Scrubber } from '../core/secrets.js';
import type { Upstream } from '../model/catalog.js';
import { DEFAULT_MAX_BODY_BYTES } from '../model/http.js';
import { priceTurn } from '../model/providers/shared.js';
import type { GateOutcome, RateGate } from '../run/rate-gate.js';
import type { EventLog } from '../store/types.js';
import { admitRequest } from './allow-list.js';
import { authenticateModelRequest } from './auth.js';
import { forward } from './forward.js';
import { AgentMeter } from './meter.js';
import { readRequestBody } from './request-body.js';
import { sendError } from './respond.js';
import { fallbackWire, type Wire, wireOf } from './wire.js';

/** What the proxy needs of one run. */
export interface ModelProxyRun {
  runId: string;
  /** The run's token secret (auth/run-secret.ts). */
  secret: Uint8Array;
  log: EventLog;
  /** The run's budget: checked before forwarding, charged with every answer. */
  budget: Budget;
  /** The run's rate gate: a call holds a slot while in flight; an upstream 429 shrinks it. */
  gate: RateGate;
  /** The model an agent's calls go to (e.g. `ModelCatalog.upstream(id)`); undefined: not served. */
  upstream(agent: string): Upstream | undefined;
  /** Scrubs what is logged (default: the upstream's key and agent tokens). */
  scrubber?: Scrubber;
  /**
   * The run allows the network (`--allow-network`): server-side tools, MCP connectors and URLs the
   * vendor fetches are forwarded. Otherwise they are refused (400; allow-list.ts).
   */
  allowNetwork?: boolean;
  /**
   * Whether an agent's CLI is hosted now: a token of an agent that is not (its CLI has ended, its
   * token may still be readable in its home) is refused like an invalid one (401). Absent: every agent.
   */
  hosted?: (agent: string) => boolean;
  /** A further check of an authenticated agent (fleet fencing): null to go on, else why not (403). */
  authorize?: (claims: AgentTokenClaims) => Promise<string | null>;
}

export interface ModelProxyOptions {
  /** The runs this proxy serves, by id (a token names its run). */
  runs: (runId: string) => ModelProxyRun | undefined;
  /** Where the handler is mounted, e.g. `/model` (default: the root). */
  basePath?: string;
  /** One call, answer included (default 10 minutes: CLIs stream long answers). */
  timeoutMs?: number;
  /** Largest request body (default 64 MiB). */
  maxRequestBytes?: number;
  /** Bytes of an answer read for metering (default 64 MiB; a longer one is passed on, unmetered). */
  maxResponseBytes?: number;
  /** Clock for token expiry (default Date.now). */
  now?: () => number;
  /** Told about failures the client cannot be told about (a server log). */
  log?: (line: string) => void;
}

export const DEFAULT_PROXY_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024;

export function createModelProxyHandler(options: ModelProxyOptions): RequestListener {
  const meters = new Map<string, AgentMeter>();
  const meterOf = (run: ModelProxyRun): AgentMeter => {
    let meter = meters.get(run.runId);
    if (!meter) {
      meter = new AgentMeter(run.runId, run.log);
      meters.set(run.runId, meter);
    }
    return meter;
  };
  return (req, res) => {
    handle(req, res, options, meterOf).catch((error: unknown) => {
      options.log?.(`model proxy: ${(error as Error).message}`);
      if (!res.headersSent) sendError(res, fallbackWire(req.url ?? '/'), 500, 'internal proxy error');
      else res.destroy();
    });
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  options: ModelProxyOptions,
  meterOf: (run: ModelProxyRun) => AgentMeter,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://proxy.invalid');
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  const path = url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : null;
  const wire = path === null ? null : wireOf(path);
  if (!wire) {
    const served = 'POST /v1/messages, /v1/chat/completions, /v1/responses';
    return sendError(
      res,
      fallbackWire(path ?? ''),
      404,
      `not a proxy route: ${url.pathname} (served: ${served})`,
    );
  }
  if (req.method !== 'POST')
    return sendError(res, wire, 405, `${url.pathname} takes POST`, { allow: 'POST' });

  const auth = authenticateModelRequest(
    req.headers,
    (id) => options.runs(id)?.secret,
    (options.now ?? Date.now)(),
  );
  const run = auth.ok ? options.runs(auth.value.runId) : undefined;
  if (!auth.ok || !run) return sendError(res, wire, 401, auth.ok ? 'the run is not served here' : auth.error);
  const agent = auth.value.agent;
  if (run.hosted && !run.hosted(agent))
    return sendError(res, wire, 401, `agent '${agent}' is not running here now: its token is not accepted`);
  const denied = run.authorize ? await run.authorize(auth.value) : null;
  if (denied !== null) return sendError(res, wire, 403, denied);
  const upstream = run.upstream(agent);
  if (!upstream) return sendError(res, wire, 403, `agent '${agent}' has no model in run ${run.runId}`);
  if (upstream.model.protocol !== wire.protocol) return sendError(res, wire, 400, mismatch(wire, upstream));

  const read = await readRequestBody(req, options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
  if (!read.ok) {
    if (read.error === 'too_large') return sendError(res, wire, 413, 'the request body is too large');
    return void res.destroy();
  }
  const parsed = parseObject(read.value);
  if (!parsed) return sendError(res, wire, 400, 'the request body is not a JSON object');
  const allowNetwork = run.allowNetwork === true;
  const admitted = admitRequest(wire.protocol, parsed, allowNetwork);
  if (!admitted.ok) return sendError(res, wire, 400, admitted.error);
  const body = admitted.value;

  const meter = meterOf(run);
  // Estimated like the loop's check (four characters a token), on the whole request as sent.
  const estimate = Math.ceil(read.value.length / 4);
  const hit = await run.budget.check(estimate, upstream.model.prices?.input ?? null);
  if (hit) {
    await meter.limit(agent, hit);
    const why = `the run's budget does not allow this call: ${budgetHitText(hit)}`;
    return sendError(res, wire, 402, `${why}; Colony refuses this agent's model calls`);
  }

  wire.prepare(body, upstream.model.name);
  const scrubber = run.scrubber ?? createScrubber(upstream.apiKey ? [upstream.apiKey] : []);
  await proxyCall(
    { req, res, wire, run, agent, upstream, body, meter, scrubber, search: url.search, allowNetwork },
    options,
  );
}

interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  wire: Wire;
  run: ModelProxyRun;
  agent: string;
  upstream: Upstream;
  body: Record<string, unknown>;
  meter: AgentMeter;
  scrubber: Scrubber;
  search: string;
  allowNetwork: boolean;
}

/** Holds a gate slot while the call is in flight, forwards it and logs its outcome. */
async function proxyCall(call: Call, options: ModelProxyOptions): Promise<void> {
  const { res, wire, run, agent, upstream, meter, scrubber } = call;
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const started = performance.now();
  const slot = await run.gate.hold(gone.signal);
  if (!slot) return void res.destroy();
  let outcome: GateOutcome = 'other';
  try {
    const forwarded = await forward({
      wire,
      upstream,
      body: JSON.stringify(call.body),
      search: call.search,
      clientHeaders: call.req.headers,
      allowNetwork: call.allowNetwork,
      res,
      signal: gone.signal,
      timeoutMs: options.timeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_BODY_BYTES,
    });
    const latencyMs = Math.round(performance.now() - started);
    const { result } = forwarded;
    // Logged before the client's answer ends: once the client has it, the log has it too.
    try {
      if (result.ok) {
        outcome = 'ok';
        const turn = scrubber.scrubValue(priceTurn(result.value, upstream.model));
        run.budget.record(turn.usage, turn.costUsd);
        const requestMessages = wire.requestMessages(call.body);
        await meter.response(agent, { turn, latencyMs, requestMessages });
      } else {
        if (result.error.kind === 'rate_limit') outcome = 'rate_limited';
        await meter.error(agent, scrubber.scrubValue({ ...result.error, attempts: 1 }));
      }
    } catch (error) {
      options.log?.(
        `model proxy: logging ${agent}'s call in ${run.runId} failed: ${(error as Error).message}`,
      );
    }
    forwarded.end();
  } finally {
    slot.release(outcome);
  }
}

function mismatch(wire: Wire, upstream: Upstream): string {
  const { model } = upstream;
  return (
    `this agent's model '${model.id}' speaks ${model.protocol}, but the client sent ${wire.route} ` +
    `(${wire.protocol}): run a CLI that speaks ${model.protocol}, or give the agent a ${wire.protocol} model`
  );
}

function parseObject(bytes: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export interface ModelProxyServer {
  /** `http://127.0.0.1:<port>` plus the base path: the CLI's base URL (OpenAI clients add `/v1`). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The handler on its own server, listening on 127.0.0.1 (a free port unless `port` is given). */
export function startModelProxy(
  options: ModelProxyOptions & { port?: number; host?: string },
): Promise<ModelProxyServer> {
  const server = createServer(createModelProxyHandler(options));
  // A CLI's streamed answer can take many minutes; the proxy's own time-out bounds a call.
  server.requestTimeout = 0;
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host }, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${host}:${port}${(options.basePath ?? '').replace(/\/+$/, '')}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
