/**
 * Failing fast when a CLI's MCP connection to Colony is not up: the real Claude Code and Codex are
 * driven (`driveCli`, no sandbox) against an MCP URL that refuses connections. Claude Code's
 * `system/init` event lists the colony server as not connected (the CLI is killed); Codex, with the
 * server `required`, exits before its first event and says so on stderr. Either way the agent ends
 * `cli_failed` within seconds with a reason naming the MCP connection, and no model call was made.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentCliServer, driveCli, parseAgentCliFlag } from '../../src/external-agent/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

/** A 127.0.0.1 port nobody listens on (taken, then let go). */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('a CLI whose MCP connection is not up fails at once', () => {
  for (const [kind, expected] of [
    ['claude-code', /Claude Code's MCP connection to Colony is not up \(init event: status failed\)/],
    [
      'codex',
      /Codex's MCP connection to Colony is not up \(colony: handshaking with MCP server failed: Client error: .*error sending request for url \(http:\/\/127\.0\.0\.1:\d+\/mcp\), when send initialize request\)/,
    ],
  ] as const) {
    it(kind, async () => {
      const cli = parseAgentCliFlag(kind);
      if (!cli.ok) throw new Error(cli.error);
      const port = await refusedPort();
      // Only address() of the host server is used: here it names a port that refuses.
      const server = {
        address: async () => ({ url: `http://127.0.0.1:${port}`, port, socket: '/nonexistent' }),
      } as unknown as AgentCliServer;
      const runId = testRunId(`mcp-down-${kind}`);
      const repo = createUserRepo({ 'README.md': '# m\n' }, 'colony-mcp-down-');
      const started = Date.now();
      const outcome = await driveCli({
        cli: cli.value,
        runId,
        agent: 'peer-1',
        goal: 'fix every module',
        system: 'You are a peer. Your peer ID is peer-1.',
        worktree: repo.dir,
        agentHome: mkdtempSync(join(tmpdir(), 'colony-mcp-down-home-')),
        server,
        token: 'colony_at_not-a-real-token',
        colonyTools: ['claim', 'release'],
        model: 'fake-model',
        sandbox: null,
        baseEnv: process.env,
        log: store.log,
        history: [],
        signal: new AbortController().signal,
      });
      const elapsed = Date.now() - started;
      expect(outcome, JSON.stringify(outcome)).toMatchObject({
        status: 'failed',
        stopReason: 'cli_failed',
        steps: 0,
      });
      expect(outcome.reason).toMatch(expected);
      // Seconds, not a model turn's or a time-out's worth.
      expect(elapsed).toBeLessThan(30_000);
      const events = await store.log.read(runId, { agent: 'peer-1' });
      expect(events.map((e) => e.kind)).toEqual(['agent.cli', 'agent.cli', 'agent.finished']);
    }, 60_000);
  }
});
