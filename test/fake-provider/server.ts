/**
 * A fake LLM provider over real HTTP. It speaks OpenAI Chat Completions, OpenAI Responses and
 * Anthropic Messages (whole and streamed), decodes each request into a neutral ModelRequest, asks a
 * ScriptedPolicy for the turn and encodes it back, with usage including cached fields. Failures and
 * latency can be injected. Cheap per request: keep-alive, no logging, optional recording.
 */
import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ScriptedPolicy, scriptedTurnToModelTurn } from '../../src/model/providers/scripted.js';
import type { ModelRecord, ModelRequest } from '../../src/model/types.js';
import { sendEndless } from './endless.js';
import { type Failure, type FailurePlan, pickFailure } from './failures.js';
import {
  type DecodeResult,
  decodeAnthropicRequest,
  decodeChatRequest,
  decodeResponsesRequest,
  type Namespaced,
} from './wire-decode.js';
import { type Encoded, encodeAnthropic, encodeChat, encodeResponses } from './wire-encode.js';

export type { Failure, FailurePlan } from './failures.js';

export interface FakeProviderOptions {
  policy: ScriptedPolicy;
  /** Delay before each answer. */
  latencyMs?: number;
  /** Delay between frames of a streamed answer (default 0: all at once). */
  streamFrameDelayMs?: number;
  port?: number;
  host?: string;
  failures?: FailurePlan;
  /** Keep every request for `requests()` (default true; turn off for benchmarks). */
  record?: boolean;
  /** When set, requests must carry this key (Bearer or x-api-key), else 401. */
  requireKey?: string;
}

export interface RecordedRequest {
  index: number;
  path: string;
  headers: IncomingMessage['headers'];
  /** The wire body as sent. */
  body: unknown;
  /** The neutral request decoded from it (undefined when it could not be decoded). */
  request: ModelRequest | undefined;
  key: string | undefined;
  failure: Failure | undefined;
}

export interface FakeStats {
  /** Model requests received (including failed ones). */
  requests: number;
  /** Successful answers per request key (a hash of the request body: model, system, messages, tools). */
  byKey: Record<string, number>;
}

export interface FakeProvider {
  /** Base URL including `/v1`. */
  url: string;
  port: number;
  requests(): RecordedRequest[];
  stats(): FakeStats;
  /** Replaces the failure plan; its indexes count from now. */
  setFailures(plan: FailurePlan | undefined): void;
  close(): Promise<void>;
}

type Protocol = 'chat' | 'responses' | 'anthropic';
const ROUTES: Record<string, Protocol> = {
  '/v1/chat/completions': 'chat',
  '/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/responses': 'responses',
  '/v1/messages': 'anthropic',
  '/messages': 'anthropic',
};
const DECODERS: Record<Protocol, (body: unknown) => DecodeResult> = {
  chat: decodeChatRequest,
  responses: decodeResponsesRequest,
  anthropic: decodeAnthropicRequest,
};
const ENCODERS: Record<
  Protocol,
  (turn: Parameters<typeof encodeChat>[0], id: string, namespaced?: Namespaced) => Encoded
> = {
  chat: encodeChat,
  responses: encodeResponses,
  anthropic: encodeAnthropic,
};
const ID_PREFIX: Record<Protocol, string> = {
  chat: 'chatcmpl-fake',
  responses: 'resp_fake',
  anthropic: 'msg_fake',
};

const FREE_MODEL: ModelRecord = {
  id: 'fake',
  protocol: 'scripted',
  name: 'fake',
  contextWindow: 128_000,
  maxOutput: 8_192,
  prices: null,
};

/**
 * A stable key for what the model was asked: a hash of the request body bytes. Hashing the raw bytes
 * (rather than re-serialising the decoded request) keeps the server cheap; a client sends the same
 * conversation as the same bytes.
 */
export function requestKey(body: Buffer): string {
  return createHash('sha1').update(body).digest('hex').slice(0, 16);
}

export function startFakeProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const record = options.record ?? true;
  const recorded: RecordedRequest[] = [];
  const byKey: Record<string, number> = {};
  let requestCount = 0;
  let served = 0;
  let plan = options.failures;
  let planIndex = 0;
  let planPathIndex = new Map<string, number>();

  const handle = async (req: IncomingMessage, res: ServerResponse, bytes: Buffer): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/_stats') {
      return send(res, 200, { requests: requestCount, byKey });
    }
    const protocol = ROUTES[path];
    if (req.method !== 'POST' || !protocol) {
      return send(res, 404, errorBody('chat', 404, `no route ${req.method} ${path}`));
    }
    const index = requestCount++;
    const pathIndex = planPathIndex.get(path) ?? 0;
    planPathIndex.set(path, pathIndex + 1);
    const failure = pickFailure(plan, { index: planIndex++, path, pathIndex });

    let body: unknown;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      return send(res, 400, errorBody(protocol, 400, 'request body is not JSON'));
    }
    const decoded = DECODERS[protocol](body);
    const request = decoded.ok ? decoded.request : undefined;
    const key = request ? requestKey(bytes) : undefined;
    if (record) recorded.push({ index, path, headers: req.headers, body, request, key, failure });

    if (options.requireKey !== undefined) {
      const auth = req.headers.authorization ?? '';
      const given = auth.startsWith('Bearer ') ? auth.slice(7) : req.headers['x-api-key'];
      if (given !== options.requireKey) return send(res, 401, errorBody(protocol, 401, 'invalid api key'));
    }
    if (!decoded.ok) return send(res, 400, errorBody(protocol, 400, decoded.error));

    if (failure && 'drop' in failure) {
      res.socket?.destroy();
      return;
    }
    if (failure && 'status' in failure) {
      const headers: Record<string, string> = {};
      if (failure.retryAfterMs !== undefined) headers['retry-after-ms'] = String(failure.retryAfterMs);
      if (failure.retryAfterS !== undefined) {
        headers['retry-after'] = failure.retryAfterAsDate
          ? new Date(Date.now() + failure.retryAfterS * 1000).toUTCString()
          : String(failure.retryAfterS);
      }
      const message = failure.message ?? `injected failure ${failure.status}`;
      return send(res, failure.status, errorBody(protocol, failure.status, message), headers);
    }

    const wait = (options.latencyMs ?? 0) + (failure && 'delayMs' in failure ? failure.delayMs : 0);
    if (wait > 0) await sleep(wait);
    if (res.destroyed) return; // the client gave up (timeout, abort)

    const stream = request!.stream === true;
    if (failure && 'endless' in failure)
      return sendEndless(res, protocol, failure.endless, failure.intervalMs);
    if (failure && 'malformed' in failure) {
      if (stream) return sendFrames(res, ['data: {"this is": not json\n\n'], 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "broken", "choices": [');
      return;
    }

    let turn: Awaited<ReturnType<ScriptedPolicy>>;
    const callIndex = served++;
    try {
      turn = await options.policy(request!, callIndex);
    } catch (err) {
      return send(res, 500, errorBody(protocol, 500, `policy failed: ${String(err)}`));
    }
    const modelName = (body as { model?: unknown }).model;
    const model = typeof modelName === 'string' ? { ...FREE_MODEL, name: modelName } : FREE_MODEL;
    // Input not given by the policy is estimated from the body size (chars / 4): cheap and realistic.
    if (turn.usage?.input === undefined) {
      const cached = (turn.usage?.cachedInput ?? 0) + (turn.usage?.cacheWrite ?? 0);
      turn = { ...turn, usage: { ...turn.usage, input: Math.max(0, Math.ceil(bytes.length / 4) - cached) } };
    }
    const encoded = ENCODERS[protocol](
      scriptedTurnToModelTurn(turn, request!, callIndex, model),
      `${ID_PREFIX[protocol]}_${callIndex}`,
      decoded.ok ? decoded.namespaced : undefined,
    );
    byKey[key!] = (byKey[key!] ?? 0) + 1;
    if (failure && 'cutAfterFrames' in failure) {
      const whole = JSON.stringify(encoded.json());
      return sendCut(
        res,
        stream ? encoded.frames({ includeUsage: true }).slice(0, failure.cutAfterFrames).join('') : whole,
        stream,
      );
    }
    if (!stream) return send(res, 200, encoded.json());
    const includeUsage =
      protocol !== 'chat' ||
      (body as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true;
    return sendFrames(res, encoded.frames({ includeUsage }), options.streamFrameDelayMs ?? 0);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).catch((err: unknown) => {
        if (!res.headersSent) send(res, 500, { error: { message: String(err), type: 'server_error' } });
        else res.destroy();
      });
    });
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0;

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1', backlog: 4096 }, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${options.host ?? '127.0.0.1'}:${port}/v1`,
        port,
        requests: () => recorded.slice(),
        stats: () => ({ requests: requestCount, byKey: { ...byKey } }),
        setFailures(next) {
          plan = next;
          planIndex = 0;
          planPathIndex = new Map();
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** 200 and part of an answer (a whole body: its first half), then the connection is closed. */
function sendCut(res: ServerResponse, text: string, stream: boolean): void {
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
  res.write(stream ? text : text.slice(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
}

function sendFrames(res: ServerResponse, frames: string[], frameDelayMs: number): void {
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (frameDelayMs <= 0) {
    res.end(frames.join(''));
    return;
  }
  let i = 0;
  const next = (): void => {
    if (res.destroyed) return;
    const frame = frames[i++];
    if (frame === undefined) {
      res.end();
      return;
    }
    res.write(frame);
    setTimeout(next, frameDelayMs);
  };
  next();
}

function errorBody(protocol: Protocol, status: number, message: string): unknown {
  const type =
    status === 401
      ? 'authentication_error'
      : status === 403
        ? 'permission_error'
        : status === 429
          ? 'rate_limit_error'
          : status >= 500
            ? 'api_error'
            : 'invalid_request_error';
  if (protocol === 'anthropic') return { type: 'error', error: { type, message } };
  return { error: { message, type, param: null, code: null } };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
