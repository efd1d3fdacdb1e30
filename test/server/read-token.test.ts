/**
 * `tokenForReads` (`colony serve --token-for-reads`): on loopback every API read and the event stream
 * need the token (header, or ?token= for EventSource); the page itself still loads. Off (the
 * default), reading on loopback is open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';
import { collectSse, request } from './http-client.js';
import { recordRun } from './run-fixture.js';

const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuv';
let store: Store;
let runId: string;

beforeAll(async () => {
  store = await openTestStore();
  runId = await recordRun(store, 'read-token');
});

afterAll(async () => {
  await store?.close();
});

async function serve(tokenForReads: boolean): Promise<RunningServer> {
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, tokenForReads });
  if (!started.ok) throw new Error(started.error);
  return started.server;
}

const reads = () => [
  '/api/runs',
  `/api/runs/${runId}`,
  `/api/runs/${runId}/events`,
  `/api/runs/${runId}/agents`,
  `/api/runs/${runId}/merges`,
  `/api/runs/${runId}/metrics`,
  `/api/runs/${runId}/stream`,
];

describe('token for reads', () => {
  it('on: every API read and the stream are 401 without the token, 200 with it', async () => {
    const server = await serve(true);
    try {
      for (const path of reads()) {
        const bare = await request(server.url, 'GET', path);
        expect(bare.status, path).toBe(401);
        expect(bare.body.error, path).toMatch(
          /needs the token for reading too \(colony serve --token-for-reads\)/,
        );
        expect((await request(server.url, 'GET', path, { token: 'wrong' })).status, path).toBe(401);
      }
      for (const path of reads().filter((p) => !p.endsWith('/stream')))
        expect((await request(server.url, 'GET', path, { token: TOKEN })).status, path).toBe(200);
      expect((await request(server.url, 'HEAD', '/api/runs')).status).toBe(401);
      // EventSource cannot send headers: the query token opens the stream.
      const events = await collectSse(
        server.url,
        `/api/runs/${runId}/stream?token=${TOKEN}`,
        (e) => e.length >= 3,
      );
      expect(events.map((e) => e.id)).toEqual(['1', '2', '3']);
      await expect(collectSse(server.url, `/api/runs/${runId}/stream`, () => true)).rejects.toThrow(/401/);
      // The page loads (it holds no run data and reads its token from the URL fragment).
      expect((await request(server.url, 'GET', '/')).status).toBe(200);
      // Actions still take the header only.
      expect((await request(server.url, 'POST', `/api/runs/${runId}/stop?token=${TOKEN}`)).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('off: reading on loopback is open', async () => {
    const server = await serve(false);
    try {
      for (const path of reads().filter((p) => !p.endsWith('/stream')))
        expect((await request(server.url, 'GET', path)).status, path).toBe(200);
      const events = await collectSse(server.url, `/api/runs/${runId}/stream`, (e) => e.length >= 1);
      expect(events).toHaveLength(1);
      expect((await request(server.url, 'POST', `/api/runs/${runId}/stop`)).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});
