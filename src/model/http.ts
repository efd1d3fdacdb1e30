/**
 * JSON POST over node:http/node:https with keep-alive, retries with full jitter, Retry-After, a
 * per-attempt timeout and abort. Never throws: failures come back as ModelError data.
 *
 * A response is bounded twice, so a provider (or proxy) whose body never ends cannot hang a call or
 * fill memory: the per-attempt time-out covers the whole body (a trickle of SSE keep-alives too),
 * and a 2xx body larger than `maxBodyBytes` ends the attempt as a retryable 'server' error.
 *
 * Why not global fetch: measured at 1,000 concurrent callers x 6 calls against a local server,
 * fetch (undici) cost ~1.0-1.3 ms CPU per call against ~0.35 ms for node:http with a keep-alive agent.
 */

import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import type { Result } from '../lang/result.js';
import { createSseParser, type SseEvent } from './sse.js';
import type { CallOptions, ModelError, ModelErrorKind } from './types.js';

// Uncapped sockets per origin, and enough idle ones kept that a burst of 1,000 agents reuses them.
const agentOptions = { keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 4096 };
const httpAgent = new http.Agent(agentOptions);
const httpsAgent = new https.Agent(agentOptions);

export interface HttpOptions {
  /** Per-attempt timeout, covering the whole response body (stream included). Default 120 s. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 4. */
  maxRetries?: number;
  /** Full-jitter backoff: delay = random(0, min(maxDelayMs, baseDelayMs * 2^retry)). Default 500 ms. */
  baseDelayMs?: number;
  /** Default 8 s. */
  maxDelayMs?: number;
  /** Bytes a 2xx response body may have (stream included). Default 64 MiB. */
  maxBodyBytes?: number;
  signal?: AbortSignal;
  onRetry?: CallOptions['onRetry'];
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 4;
/**
 * Far above any real answer (128k output tokens streamed one per event are ~40 MB of SSE), far below
 * what would hurt: an endless body is cut here.
 */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 8_000;
/** A server-requested wait longer than this is capped to it. */
const MAX_RETRY_AFTER_MS = 60_000;
const MAX_ERROR_BODY = 64 * 1024;

/** An error found while reading a response; the caller adds the attempt count. */
export type HttpError = Omit<ModelError, 'attempts'>;
export type ReadResult<T> = Result<T, HttpError>;
/** Reads a 2xx response body. Called once per attempt. */
export type BodyReader<T> = (res: IncomingMessage) => Promise<ReadResult<T>>;
export type PostResult<T> = { ok: true; value: T; attempts: number } | { ok: false; error: ModelError };

export interface PostTarget {
  url: URL;
  headers: Record<string, string>;
}

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(['rate_limit', 'server', 'network', 'timeout']);

export async function postJson<T>(
  target: PostTarget,
  body: string,
  read: BodyReader<T>,
  options: HttpOptions = {},
): Promise<PostResult<T>> {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const cap = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const { signal } = options;
  const headers = { ...target.headers, 'content-length': String(Buffer.byteLength(body)) };
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) return { ok: false, error: aborted(attempt - 1) };
    const outcome = await attemptPost(target.url, headers, body, read, {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      signal,
    });
    if (outcome.ok) return { ok: true, value: outcome.value, attempts: attempt };
    const error: ModelError = { ...outcome.error, attempts: attempt };
    if (!RETRYABLE.has(error.kind) || attempt > maxRetries) return { ok: false, error };
    const delayMs =
      outcome.retryAfterMs !== undefined
        ? Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS)
        : Math.floor(Math.random() * Math.min(cap, base * 2 ** (attempt - 1)));
    options.onRetry?.({ attempt, delayMs, error });
    if (!(await sleep(delayMs, signal))) return { ok: false, error: aborted(attempt) };
  }
}

type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; error: HttpError; retryAfterMs?: number };

interface AttemptLimits {
  timeoutMs: number;
  maxBodyBytes: number;
  signal: AbortSignal | undefined;
}

function attemptPost<T>(
  url: URL,
  headers: Record<string, string>,
  body: string,
  read: BodyReader<T>,
  { timeoutMs, maxBodyBytes, signal }: AttemptLimits,
): Promise<AttemptOutcome<T>> {
  return new Promise((resolve) => {
    let done = false;
    const secure = url.protocol === 'https:';
    const req = (secure ? https : http).request(url, {
      method: 'POST',
      headers,
      agent: secure ? httpsAgent : httpAgent,
    });
    const finish = (outcome: AttemptOutcome<T>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const fail = (kind: ModelErrorKind, message: string): void => {
      finish({ ok: false, error: { kind, message } });
      req.destroy();
    };
    const onAbort = (): void => fail('aborted', 'the call was aborted');
    const timer = setTimeout(() => fail('timeout', `no complete response within ${timeoutMs} ms`), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });

    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({
        ok: false,
        error: { kind: 'network', message: `${err.code ?? 'network error'}: ${err.message}` },
      });
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        // Counted beside the reader (both see every chunk); readers get Buffers, so these are bytes.
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxBodyBytes && !done) {
            fail(
              'server',
              `the response body exceeded ${maxBodyBytes} bytes (the provider kept sending; a body that never ends?)`,
            );
          }
        });
        read(res).then(finish, (err: unknown) =>
          finish({
            ok: false,
            error: { kind: 'malformed', message: `reading the response failed: ${String(err)}` },
          }),
        );
        return;
      }
      readText(res, MAX_ERROR_BODY).then((text) => {
        const outcome: AttemptOutcome<T> = { ok: false, error: statusError(status, text) };
        const retryAfterMs = parseRetryAfter(res.headers);
        if (retryAfterMs !== undefined) outcome.retryAfterMs = retryAfterMs;
        finish(outcome);
      });
    });
    req.end(body);
  });
}

export function statusError(status: number, text: string): HttpError {
  const kind: ModelErrorKind =
    status === 401 || status === 403
      ? 'auth'
      : status === 429
        ? 'rate_limit'
        : status === 408 || status === 409 || status >= 500
          ? 'server'
          : 'bad_request';
  return { kind, status, message: `HTTP ${status}: ${errorMessage(text)}` };
}

/** The provider's own error message when the body is a JSON error object, else the text, shortened. */
function errorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const err = parsed.error;
    if (typeof err === 'string') return err;
    if (err && typeof err.message === 'string') return err.message;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Not JSON: fall through to the raw text.
  }
  const trimmed = text.trim();
  return trimmed === '' ? '(empty body)' : trimmed.slice(0, 500);
}

/** `retry-after-ms` (milliseconds), or `retry-after` in seconds or as an HTTP date. */
export function parseRetryAfter(headers: IncomingMessage['headers'], now = Date.now()): number | undefined {
  const ms = headers['retry-after-ms'];
  if (typeof ms === 'string' && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const ra = headers['retry-after'];
  if (typeof ra !== 'string' || ra.trim() === '') return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function readText(res: IncomingMessage, limit: number): Promise<string> {
  return readCapped(res, limit).then((body) => body.toString('utf8'));
}

/** A response body, at most `limit` bytes of it kept (the rest read and dropped); never rejects. */
export function readCapped(res: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      if (size < limit) chunks.push(chunk);
      size += chunk.length;
    });
    const done = (): void => resolve(Buffer.concat(chunks));
    res.on('end', done);
    res.on('error', done);
    res.on('close', done);
  });
}

/** Reads the whole body as JSON; an unparsable body is 'malformed', a cut connection 'network'. */
export const readJson: BodyReader<unknown> = (res) =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let ended = false;
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => {
      ended = true;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve({ ok: true, value: JSON.parse(text) as unknown });
      } catch {
        resolve({
          ok: false,
          error: { kind: 'malformed', message: `response is not JSON: ${text.slice(0, 200)}` },
        });
      }
    });
    const cut = (): void => {
      if (!ended)
        resolve({ ok: false, error: { kind: 'network', message: 'connection closed mid-response' } });
    };
    res.on('error', cut);
    res.on('close', cut);
  });

/** Accumulates one streamed response; a fresh one is made for every attempt. */
export interface StreamAccumulator<T> {
  /** Handles one event; an error stops reading. */
  event(ev: SseEvent): HttpError | undefined;
  /** Called at the end of the stream. */
  finish(): ReadResult<T>;
}

export function readSse<T>(makeAccumulator: () => StreamAccumulator<T>): BodyReader<T> {
  return (res) =>
    new Promise((resolve) => {
      const acc = makeAccumulator();
      let settled = false;
      const settle = (result: ReadResult<T>): void => {
        if (settled) return;
        settled = true;
        resolve(result);
      };
      const stop = (error: HttpError): void => {
        settle({ ok: false, error });
        res.destroy();
      };
      const parser = createSseParser((ev) => {
        if (settled) return;
        const error = acc.event(ev);
        if (error) stop(error);
      });
      // Decoded here rather than with setEncoding: the body's size is counted in bytes (attemptPost).
      const decoder = new StringDecoder('utf8');
      const push = (text: string): void => {
        const error = parser.push(text);
        if (error !== undefined) stop({ kind: 'malformed', message: error });
      };
      res.on('data', (chunk: Buffer) => {
        if (!settled) push(decoder.write(chunk));
      });
      res.on('end', () => {
        if (settled) return;
        push(decoder.end());
        if (settled) return;
        const error = parser.end();
        if (error !== undefined) stop({ kind: 'malformed', message: error });
        else settle(acc.finish());
      });
      const cut = (): void =>
        settle({ ok: false, error: { kind: 'network', message: 'stream closed before its end' } });
      res.on('error', cut);
      res.on('close', cut);
    });
}

function aborted(attempts: number): ModelError {
  return { kind: 'aborted', message: 'the call was aborted', attempts };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
