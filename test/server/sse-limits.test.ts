/**
 * The event stream's bounds: a client that does not read (a raw socket that never drains) keeps the
 * server's buffered bytes bounded while megabytes of events are appended, is dropped once it stays
 * behind, and resumes from its Last-Event-ID; the server's stream cap answers 503 with Retry-After.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput, StoredEvent } from '../../src/core/events.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';
import { collectSse, request } from './http-client.js';
import { recordRun } from './run-fixture.js';

const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuv';
const CHUNK = 32 * 1024;
let store: Store;

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

async function serve(options: { maxConnections?: number; stallMs?: number } = {}): Promise<RunningServer> {
  const started = await startServer({
    store,
    token: TOKEN,
    host: '127.0.0.1',
    port: 0,
    pollMs: 20,
    sse: { maxChunkBytes: CHUNK, stallMs: 400, ...options },
  });
  if (!started.ok) throw new Error(started.error);
  return started.server;
}

async function until(probe: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A stream request on a raw socket that reads nothing until told to. */
function stalledReader(server: RunningServer, path: string) {
  const socket = net.connect(server.port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  socket.pause();
  return {
    /** Reads everything the server still delivers, until it closes the connection. */
    drain(): Promise<string> {
      return new Promise((resolve) => {
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.resume();
      });
    },
  };
}

/** `count` events of about `size` bytes each. */
function bigEvents(runId: string, count: number, size: number): EventInput[] {
  return Array.from({ length: count }, (_, i) => ({
    runId,
    agent: 'peer-1',
    kind: 'warning' as const,
    data: { message: `${i} ${'x'.repeat(size)}` },
  }));
}

describe('SSE back-pressure', () => {
  it('a client that does not read keeps the buffered bytes bounded, is dropped, and resumes from Last-Event-ID', async () => {
    const server = await serve();
    try {
      const runId = await recordRun(store, 'sse-slow');
      const reader = stalledReader(server, `/api/runs/${runId}/stream?after=0`);
      await until(() => server.stats().sse.open === 1, 'the stream to open');
      // 16 MB of events: far more than the kernel's socket buffers take for a reader that never reads
      // (without back-pressure the server would hold nearly all of it).
      const size = 16 * 1024;
      for (let batch = 0; batch < 4; batch++) await store.log.appendMany(bigEvents(runId, 256, size));
      await store.log.flush();
      const total = (await store.log.read(runId, { slim: true })).length;
      await until(() => server.stats().sse.dropped === 1, 'the stalled client to be dropped');
      const stats = server.stats().sse;
      // What the server held for it never went past one chunk (plus an event) and the socket's mark.
      expect(stats.peakBufferedBytes).toBeGreaterThan(0);
      expect(stats.peakBufferedBytes).toBeLessThan(CHUNK + size + 64 * 1024);
      expect(stats.open).toBe(0);
      expect(stats.bufferedBytes).toBe(0);

      // What reached the client is whole events up to some seq; it resumes from there.
      const got = await reader.drain();
      const ids = [...got.matchAll(/^id: (\d+)\ndata: .*\n\n/gm)].map((m) => Number(m[1]));
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.length).toBeLessThan(total);
      expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
      const last = ids.at(-1) ?? 0;
      const rest = await collectSse(
        server.url,
        `/api/runs/${runId}/stream`,
        (events) => Number(events.at(-1)?.id) >= total,
        { 'last-event-id': String(last) },
      );
      const seqs = rest.map((e) => (JSON.parse(e.data) as StoredEvent).seq);
      expect(seqs).toEqual(Array.from({ length: total - last }, (_, i) => last + 1 + i));
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe('SSE connection cap', () => {
  it('answers 503 with Retry-After over the cap, and takes a stream again once one closes', async () => {
    const server = await serve({ maxConnections: 2 });
    const runId = await recordRun(store, 'sse-cap');
    const held: http.ClientRequest[] = [];
    const open = (): Promise<http.IncomingMessage> =>
      new Promise((resolve, reject) => {
        const req = http.get(`${server.url}/api/runs/${runId}/stream`, resolve);
        req.on('error', (err) => {
          if (!(err as NodeJS.ErrnoException).code?.includes('ECONNRESET')) reject(err);
        });
        held.push(req);
      });
    try {
      expect((await open()).statusCode).toBe(200);
      expect((await open()).statusCode).toBe(200);
      await until(() => server.stats().sse.open === 2, 'two streams');
      const over = await request(server.url, 'GET', `/api/runs/${runId}/stream`);
      expect(over.status).toBe(503);
      expect(over.headers['retry-after']).toBe('5');
      expect(over.body.error).toMatch(/already streams to 2 clients .*--max-streams/);
      expect(server.stats().sse).toMatchObject({ open: 2, refused: 1 });
      // Other reads are not limited.
      expect((await request(server.url, 'GET', `/api/runs/${runId}`)).status).toBe(200);

      held[0]?.destroy();
      await until(() => server.stats().sse.open === 1, 'a stream to close');
      const events = await collectSse(server.url, `/api/runs/${runId}/stream`, (e) => e.length >= 1);
      expect(events).toHaveLength(1);
    } finally {
      for (const req of held) req.destroy();
      await server.close();
    }
  });
});
