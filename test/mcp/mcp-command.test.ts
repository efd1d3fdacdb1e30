/**
 * `colony mcp`: the built CLI as an MCP server on stdio, driven by the official client's
 * StdioClientTransport, against the real store. The run's token secret is where a fleet run keeps it
 * (colony.fleet_runs). Needs dist/ (npm test builds it; else npx tsc -p tsconfig.build.json).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentTokenScope, createRunSecret, issueAgentToken } from '../../src/auth/index.js';
import { type Coordination, createCoordination } from '../../src/coord/index.js';
import { saveFleetRun } from '../../src/fleet/fleet-db.js';
import type { Store } from '../../src/store/index.js';
import { COLONY_BIN, colony } from '../helpers/cli.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { COORDINATION_TOOLS, call } from './mcp-client.js';

const HOUR = 3_600_000;
let store: Store;
let coord: Coordination;
const runId = testRunId('mcpcli');
const secret = createRunSecret();

function token(agent: string, options: { scopes?: AgentTokenScope[]; run?: string } = {}) {
  return issueAgentToken(secret, {
    runId: options.run ?? runId,
    agent,
    expiresAt: Date.now() + HOUR,
    ...(options.scopes ? { scopes: options.scopes } : {}),
  });
}

async function saveSecret(value: Uint8Array): Promise<void> {
  await saveFleetRun(store.pool, {
    runId,
    hubUrl: 'http://127.0.0.1:9/unused',
    tokenSecret: Buffer.from(value),
  });
}

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
  const created = await store.runs.createRun({
    runId,
    topology: 'peers',
    goal: 'mcp test',
    repo: '/nonexistent',
  });
  if (!created.ok) throw new Error(created.error);
  await saveSecret(secret);
});

afterAll(async () => {
  await coord.close();
  await store.close();
});

describe('colony mcp (stdio)', () => {
  it("serves whoami and the coordination tools of the token's agent; re-checks the token per call", async () => {
    const client = new Client({ name: 'colony-test', version: '0.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [COLONY_BIN, 'mcp'],
      env: { ...(process.env as Record<string, string>), COLONY_AGENT_TOKEN: token('ext-1') },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['whoami', ...COORDINATION_TOOLS].sort());
      expect(JSON.parse((await call(client, 'whoami')).text)).toMatchObject({ agent: 'ext-1', run: runId });

      // It acts as ext-1 in the same run the in-process peers use.
      expect((await call(client, 'claim', { scope: 'lib/', summary: 'port lib' })).text).toMatch(/^Granted/);
      const conflict = await coord.claims.claim({ runId, agent: 'peer-1', scope: 'lib/x.ts', summary: 'x' });
      expect(conflict.ok && conflict.value.status === 'conflict' && conflict.value.holder).toBe('ext-1');
      await coord.messages.send({ runId, from: 'peer-1', to: 'ext-1', text: 'ping from peer-1' });
      expect((await call(client, 'message_read')).text).toContain('ping from peer-1');
      expect((await call(client, 'message_send', { to: 'peer-1', text: 'pong' })).isError).toBe(false);
      const read = await coord.messages.read(runId, 'peer-1');
      expect(read.ok && read.value.direct.map((m) => [m.from, m.text])).toEqual([['ext-1', 'pong']]);
      expect((await call(client, 'claim', { scope: 7 })).isError).toBe(true);

      // A new run secret revokes the token: the next call is refused, the process keeps answering.
      await saveSecret(createRunSecret());
      const refused = await call(client, 'whoami');
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/^refused: the token was not issued for this run/);
    } finally {
      await saveSecret(secret);
      await client.close();
    }
    expect(stderr).toContain(`serving ext-1 of run ${runId} on stdio`);
  });

  it('refuses to start without a usable token, and never takes one from argv', async () => {
    const env = (value: string) => ({ env: { COLONY_AGENT_TOKEN: value }, timeoutMs: 60_000 });
    const missing = await colony(['mcp'], env(''));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('set COLONY_AGENT_TOKEN');
    const onArgv = await colony(['mcp', token('ext-1')], env(''));
    expect(onArgv.code).toBe(2);
    expect(onArgv.stderr).toContain('never pass a token on the command line');
    const garbled = await colony(['mcp'], env('colony_at_garbage'));
    expect(garbled.code).toBe(1);
    expect(garbled.stderr).toContain('not a Colony agent token');
    const gitOnly = await colony(['mcp'], env(token('ext-1', { scopes: ['git'] })));
    expect(gitOnly.code).toBe(1);
    expect(gitOnly.stderr).toContain('lacks the mcp scope');
    const foreign = issueAgentToken(createRunSecret(), {
      runId,
      agent: 'ext-1',
      expiresAt: Date.now() + HOUR,
    });
    const other = await colony(['mcp'], env(foreign));
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('not issued for this run');
    const help = await colony(['mcp', '--help'], env(''));
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('COLONY_AGENT_TOKEN');
  });
});

describe('colony mcp token', () => {
  it('issues an agent token that colony mcp serves, and says how to get one where a token is missing', async () => {
    const issued = await colony(['mcp', 'token', runId, '--agent', 'ext-9', '--ttl', '2h']);
    expect(issued.code, issued.stderr).toBe(0);
    // The token alone on stdout (for COLONY_AGENT_TOKEN=$(colony mcp token …)); what it is on stderr.
    expect(issued.stdout).toMatch(/^colony_at_[A-Za-z0-9_.-]+\n$/);
    expect(issued.stderr).toMatch(/token of agent ext-9 in run .* expires at .*mcp scope only/);
    const client = new Client({ name: 'colony-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [COLONY_BIN, 'mcp'],
        env: { ...(process.env as Record<string, string>), COLONY_AGENT_TOKEN: issued.stdout.trim() },
        stderr: 'pipe',
      }),
    );
    try {
      const me = JSON.parse((await call(client, 'whoami')).text) as Record<string, unknown>;
      expect(me).toMatchObject({ agent: 'ext-9', run: runId, scopes: ['mcp'] });
      // About two hours from now.
      expect(Number(me.expiresInSeconds)).toBeGreaterThan(7000);
      expect(Number(me.expiresInSeconds)).toBeLessThanOrEqual(7200);
    } finally {
      await client.close();
    }

    // Where a token is missing, the way to get one is named.
    const missing = await colony(['mcp'], { env: { COLONY_AGENT_TOKEN: '' } });
    expect(missing.stderr).toContain('colony mcp token RUN --agent NAME');
    const help = await colony(['mcp', '--help']);
    expect(help.stdout).toContain('colony mcp token RUN --agent NAME');
    expect((await colony(['--help'])).stdout).toContain('mcp token');
  });

  it('refuses what it cannot issue, with the reason', async () => {
    const reserved = await colony(['mcp', 'token', runId, '--agent', 'user']);
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toMatch(/"user" is reserved/);
    const noAgent = await colony(['mcp', 'token', runId]);
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain('--agent NAME');
    const unknown = await colony(['mcp', 'token', 'no-such-run', '--agent', 'ext-9']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no such run: no-such-run');
    // A run that keeps no token secret (not started with --workers) cannot have one.
    const plain = testRunId('mcp-plain');
    const created = await store.runs.createRun({
      runId: plain,
      topology: 'peers',
      goal: 'g',
      repo: '/nonexistent',
    });
    if (!created.ok) throw new Error(created.error);
    const noSecret = await colony(['mcp', 'token', plain, '--agent', 'ext-9']);
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toContain('keeps no agent-token secret');
    expect(noSecret.stdout).toBe('');
    await store.runs.setRunStatus(plain, 'stopped');
  });
});
