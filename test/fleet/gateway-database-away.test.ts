/**
 * A worker's merge request while the run's database restarts (soak seed 44): the owner's gateway
 * answered 500 "internal error", which a worker takes as final, and the agent's work never landed.
 * It now answers 503 while the database is away, the worker's client sends the request again, and the
 * request is queued once and lands. Debian's Postgres crashed and restarted on its port; the real
 * gateway, queue and worker client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunSecret, issueAgentToken } from '../../src/auth/index.js';
import { type Gateway, startGateway } from '../../src/fleet/gateway.js';
import { openStore, type Store } from '../../src/store/index.js';
import { integrationClient } from '../../src/worker/integration-client.js';
import { type DebianPostgres, startDebianPostgres } from '../helpers/debian-postgres.js';
import { sh, tempDir, write } from '../workspace/helpers.js';
import { makeFixture } from '../workspace/integration/fixture.js';

describe("a worker's merge request while the run's database restarts", () => {
  let db: DebianPostgres;
  let store: Store;
  let home: ReturnType<typeof tempDir>;
  let gateway: Gateway | null = null;

  beforeAll(async () => {
    db = await startDebianPostgres();
    home = tempDir('colony-gw-away-');
    store = await openStore({ databaseUrl: db.url, home: home.dir, quiet: true });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await store?.close();
    await db?.stop();
    home?.cleanup();
  });

  it('is answered 503, sent again by the worker, queued once and landed', async () => {
    const fx = await makeFixture(store, 'gw-away');
    const agent = await fx.agent('a');
    write(agent.path, 'src/a.txt', 'from a\n');
    sh(agent.path, 'add', '-A');
    sh(agent.path, 'commit', '--quiet', '-m', 'a');
    const commit = sh(agent.path, 'rev-parse', 'HEAD');
    const queue = fx.queue();
    const secret = createRunSecret();
    const logged: string[] = [];
    const opened = await startGateway({
      runId: fx.runId,
      hubPath: fx.hub,
      secret,
      queue,
      // As the owner's own: each request's session epoch is read from the database.
      authorize: async () => {
        await store.pool.query('SELECT 1');
        return null;
      },
      log: (line) => logged.push(line),
    });
    gateway = opened;
    const token = issueAgentToken(secret, {
      runId: fx.runId,
      agent: 'a',
      expiresAt: Date.now() + 3_600_000,
      scopes: ['git', 'mcp'],
    });
    const client = integrationClient({ baseUrl: () => opened.url, runId: fx.runId, token: () => token });

    const restarted = db.crashAndRestart(3_000);
    // Asked while the server is down.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const queued = await client.enqueue({ agent: 'a', branch: agent.branch, commit, note: 'add a' });
    await restarted;
    expect(queued.ok, JSON.stringify(queued)).toBe(true);
    if (!queued.ok) return;
    // It reached the gateway while the database was away, and was answered so.
    expect(
      logged.some((line) => /gateway: .*(ECONNREFUSED|terminat|starting up|shutting down)/i.test(line)),
    ).toBe(true);
    const result = await client.outcome(queued.mr);
    expect(result.status, JSON.stringify(result)).toBe('landed');
    const events = await store.log.read(fx.runId, { kinds: ['merge.requested'] });
    expect(events.map((e) => e.data.commit)).toEqual([commit]);
    fx.cleanup();
  }, 120_000);
});
