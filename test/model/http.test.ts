import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRetryAfter, postJson, readJson } from '../../src/model/http.js';

/** A tiny real server whose answer per request is chosen by the test. */
let server: http.Server;
let base: string;
let connections = 0;
let answer: (n: number, res: http.ServerResponse) => void = (_n, res) => res.end('{}');
let served = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(served++, res));
  });
  server.on('connection', () => connections++);
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** Writes `piece` as fast as the client reads, until it hangs up. */
function endless(res: http.ServerResponse, piece: Buffer): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const next = (): void => {
    while (!closed && res.write(piece)) {
      // keep writing while the socket takes it
    }
    if (!closed) res.once('drain', next);
  };
  next();
}

const target = () => ({ url: new URL(`${base}/x`), headers: { 'content-type': 'application/json' } });

describe('parseRetryAfter', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '250.5' })).toBe(251);
    expect(parseRetryAfter({ 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': '0.5' })).toBe(500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
  });
});

describe('postJson', () => {
  it('honours retry-after-ms', async () => {
    served = 0;
    answer = (n, res) => {
      if (n === 0) {
        res.writeHead(429, { 'retry-after-ms': '300' });
        res.end('{"error":{"message":"slow down"}}');
      } else res.end('{"ok":true}');
    };
    const delays: number[] = [];
    const started = Date.now();
    const r = await postJson(target(), '{}', readJson, {
      baseDelayMs: 1,
      onRetry: (i) => delays.push(i.delayMs),
    });
    expect(r).toEqual({ ok: true, value: { ok: true }, attempts: 2 });
    expect(delays).toEqual([300]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('reuses keep-alive connections across sequential and concurrent calls', async () => {
    answer = (_n, res) => res.end('{"ok":true}');
    await Promise.all(Array.from({ length: 20 }, () => postJson(target(), '{}', readJson)));
    const before = connections;
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(Array.from({ length: 20 }, () => postJson(target(), '{}', readJson)));
      expect(results.every((r) => r.ok)).toBe(true);
    }
    expect(connections - before).toBe(0);
  });

  it('reports a refused connection as network after its retries', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await postJson({ url: new URL(`http://127.0.0.1:${port}/`), headers: {} }, '{}', readJson, {
      maxRetries: 2,
      baseDelayMs: 1,
    });
    expect(!r.ok && r.error).toMatchObject({
      kind: 'network',
      attempts: 3,
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('stops waiting between retries when aborted', async () => {
    answer = (_n, res) => {
      res.writeHead(503, { 'retry-after': '30' });
      res.end('busy');
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const r = await postJson(target(), '{}', readJson, { signal: controller.signal });
    expect(!r.ok && r.error).toMatchObject({ kind: 'aborted', attempts: 1 });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('cuts a 2xx body larger than maxBodyBytes as a retryable server error', async () => {
    served = 0;
    answer = (_n, res) => endless(res, Buffer.alloc(64 * 1024, 'a'));
    const started = Date.now();
    const r = await postJson(target(), '{}', readJson, {
      maxBodyBytes: 1024 * 1024,
      maxRetries: 1,
      baseDelayMs: 1,
    });
    expect(!r.ok && r.error).toEqual({
      kind: 'server',
      message:
        'the response body exceeded 1048576 bytes (the provider kept sending; a body that never ends?)',
      attempts: 2,
    });
    expect(served).toBe(2);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('ends a body that trickles in forever at the time-out, which covers the whole body', async () => {
    answer = (_n, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":"');
      const timer = setInterval(() => res.write('a'), 20);
      res.on('close', () => clearInterval(timer));
    };
    const started = Date.now();
    const r = await postJson(target(), '{}', readJson, { timeoutMs: 300, maxRetries: 0 });
    expect(!r.ok && r.error).toEqual({
      kind: 'timeout',
      message: 'no complete response within 300 ms',
      attempts: 1,
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('returns a plain-text error body in the message', async () => {
    answer = (_n, res) => {
      res.writeHead(404);
      res.end('no such model');
    };
    const r = await postJson(target(), '{}', readJson);
    expect(!r.ok && r.error).toEqual({
      kind: 'bad_request',
      status: 404,
      message: 'HTTP 404: no such model',
      attempts: 1,
    });
  });
});
