/**
 * `colony serve` through the built CLI: prints the dashboard URL with the token in the fragment,
 * keeps the token in $COLONY_HOME/server-token (0600, reused on the next start), serves the API and
 * the page, refuses an action without the token, and exits 0 on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveHome } from '../../src/store/index.js';
import { COLONY_BIN, colony } from '../helpers/cli.js';
import { request } from './http-client.js';

function serve(args: string[] = []): Promise<{
  url: string;
  token: string;
  stop: () => Promise<{ code: number | null; signal: string | null; out: string }>;
}> {
  const child = spawn(process.execPath, [COLONY_BIN, 'serve', '--port', '0', ...args]);
  let out = '';
  return new Promise((resolve, reject) => {
    child.on('close', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(out);
      if (m?.[1] && m[2])
        resolve({
          url: m[1],
          token: m[2],
          stop: () =>
            new Promise((done) => {
              child.removeAllListeners('close');
              child.on('close', (code, signal) => done({ code, signal, out }));
              child.kill('SIGTERM');
            }),
        });
    });
  });
}

describe('colony serve', () => {
  it('prints the URL with the token, serves page and API, keeps the token 0600 across restarts', async () => {
    const first = await serve();
    const page = await request(first.url, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/assets/dashboard/app.js');
    expect((await request(first.url, 'GET', '/assets/dashboard/app.js')).status).toBe(200);
    expect((await request(first.url, 'GET', '/assets/dashboard/../../server/token.js')).status).toBe(404);
    expect((await request(first.url, 'GET', '/api/runs')).status).toBe(200);
    expect((await request(first.url, 'POST', '/api/runs/x/stop')).status).toBe(401);
    expect(await first.stop()).toMatchObject({ code: 0, signal: null });
    const file = join(resolveHome(), 'server-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = await serve();
    expect(second.token).toBe(first.token);
    expect(await second.stop()).toMatchObject({ code: 0, signal: null });
  }, 60_000);

  it('--token-for-reads: API reads need the token on loopback too; the page still loads', async () => {
    const server = await serve(['--token-for-reads', '--max-streams', '8']);
    try {
      const bare = await request(server.url, 'GET', '/api/runs');
      expect(bare.status).toBe(401);
      expect(bare.body.error).toMatch(/--token-for-reads/);
      expect((await request(server.url, 'GET', '/api/runs', { token: server.token })).status).toBe(200);
      expect((await request(server.url, 'GET', '/')).status).toBe(200);
    } finally {
      const stopped = await server.stop();
      expect(stopped).toMatchObject({ code: 0, signal: null });
      expect(stopped.out).toMatch(/reading needs the token \(--token-for-reads\)/);
    }
  }, 60_000);

  it('rejects a bad --max-streams with a usage error', async () => {
    const r = await colony(['serve', '--max-streams', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-streams must be a positive integer/);
  });

  it('rejects a bad port with a usage error', async () => {
    const r = await colony(['serve', '--port', 'many']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--port must be a positive integer/);
  });
});
