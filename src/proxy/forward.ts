/**
 * One request forwarded upstream with the real key, its answer passed to the client as the bytes
 * arrive (back-pressure: the upstream is paused while the client is slow) and read on the side for
 * metering. Failures reach the client in the protocol's shape: an upstream error status as the
 * upstream sent it (the real key blanked out), no answer as 502/504, a stream that breaks off with the
 * protocol's error event. Never throws: the outcome is data, and the caller ends the client's
 * response (`end`) once it has logged the outcome.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Upstream } from '../model/catalog.js';
import { type HttpError, type ReadResult, readCapped, statusError } from '../model/http.js';
import type { RawTurn } from '../model/providers/shared.js';
import { admittedHeader } from './allow-list.js';
import { createMeterReader } from './meter-reader.js';
import { sendError } from './respond.js';
import type { Wire } from './wire.js';

const agentOptions = { keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 1024 };
const httpAgent = new http.Agent(agentOptions);
const httpsAgent = new https.Agent(agentOptions);

/** Hop-by-hop headers and ones the proxy must not pass on (the body may be re-framed). */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'set-cookie',
]);
const MAX_ERROR_BODY = 256 * 1024;

export interface ForwardRequest {
  wire: Wire;
  upstream: Upstream;
  /** The prepared request body (JSON text). */
  body: string;
  /** The client's query string ('' or e.g. '?beta=true'), passed on. */
  search: string;
  clientHeaders: IncomingHttpHeaders;
  /** The run allows the network: feature flags of server-side tools pass (allow-list.ts). */
  allowNetwork: boolean;
  res: ServerResponse;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** The whole call, answer included. */
  timeoutMs: number;
  /** Bytes of a 2xx answer read for metering (the rest still goes to the client). */
  maxResponseBytes: number;
}

export type ForwardResult = ReadResult<RawTurn>;

export interface Forwarded {
  result: ForwardResult;
  /** Ends the client's response (or breaks it off when nothing better can be sent). */
  end(): void;
}

export function forward(f: ForwardRequest): Promise<Forwarded> {
  return new Promise((resolve) => {
    const { wire, res, signal, upstream } = f;
    const url = wire.url(f.upstream.baseUrl);
    url.search = f.search;
    const secure = url.protocol === 'https:';
    const req = (secure ? https : http).request(url, {
      method: 'POST',
      headers: upstreamHeaders(f),
      agent: secure ? httpsAgent : httpAgent,
    });
    let settled = false;
    let streaming = false;
    const settle = (result: ForwardResult, end: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve({ result, end });
    };
    /** No answer, or one broken off: `status` is what the client gets if nothing was sent yet. */
    const fail = (error: HttpError, status: number): void => {
      if (settled) return;
      req.destroy();
      settle({ ok: false, error }, () => {
        if (!res.headersSent) sendError(res, wire, status, `upstream: ${error.message}`);
        else if (streaming && !res.destroyed) res.end(wire.streamError(`upstream: ${error.message}`));
        else res.destroy();
      });
    };
    const onAbort = (): void => fail({ kind: 'aborted', message: 'the client closed the connection' }, 499);
    const timer = setTimeout(
      () => fail({ kind: 'timeout', message: `no complete answer within ${f.timeoutMs} ms` }, 504),
      f.timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });

    req.on('error', (err: NodeJS.ErrnoException) =>
      fail({ kind: 'network', message: `${err.code ?? 'network error'}: ${err.message}` }, 502),
    );
    req.on('response', (up) => {
      const status = up.statusCode ?? 502;
      if (status < 200 || status >= 300) return passError(up, status);
      res.writeHead(status, responseHeaders(up.headers));
      const reader = createMeterReader(wire, up.headers['content-type'], f.maxResponseBytes);
      streaming = reader.stream;
      let ended = false;
      up.on('data', (chunk: Buffer) => {
        if (settled) return;
        reader.push(chunk);
        if (!res.write(chunk)) {
          up.pause();
          res.once('drain', () => up.resume());
        }
      });
      up.on('end', () => {
        ended = true;
        settle(reader.finish(), () => {
          if (!res.destroyed) res.end();
        });
      });
      up.on('error', () => {}); // 'close' follows and reports it
      up.on('close', () => {
        if (!ended) fail({ kind: 'network', message: 'the upstream closed the answer before its end' }, 502);
      });
    });

    const passError = (up: IncomingMessage, status: number): void => {
      readCapped(up, MAX_ERROR_BODY).then((bytes) => {
        const text = blank(bytes.toString('utf8'), upstream.apiKey);
        const error = statusError(status, text);
        settle({ ok: false, error }, () => {
          if (res.destroyed) return;
          res.writeHead(status, responseHeaders(up.headers));
          res.end(text);
        });
      });
    };

    req.end(f.body);
  });
}

function upstreamHeaders(f: ForwardRequest): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: headerText(f.clientHeaders.accept) ?? 'application/json',
    // The answer is read for metering: no compression.
    'accept-encoding': 'identity',
    'content-length': String(Buffer.byteLength(f.body)),
    ...f.wire.defaultHeaders,
  };
  const agent = headerText(f.clientHeaders['user-agent']);
  if (agent !== undefined) headers['user-agent'] = agent;
  for (const name of f.wire.forwardedHeaders) {
    const given = headerText(f.clientHeaders[name]);
    const value = given === undefined ? undefined : admittedHeader(name, given, f.allowNetwork);
    if (value !== undefined) headers[name] = value;
  }
  return { ...headers, ...f.wire.authHeaders(f.upstream.apiKey) };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(name)) out[name] = value;
  return out;
}

/** The key never reaches the client, even when an upstream error message quotes it. */
function blank(text: string, key: string | undefined): string {
  return key && key.length >= 8 ? text.split(key).join('[redacted]') : text;
}
