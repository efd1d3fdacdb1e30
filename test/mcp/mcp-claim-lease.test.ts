/**
 * `colony mcp` keeps its agent's claims: an agent reaching Colony on stdio has no host renewing its
 * leases (PeerHost does that for the peers it runs), so the command renews them itself while the
 * session is open, with the run's own lease (`claimLeaseMs` of its recorded spec), and stops when
 * stdio closes (the claims then lapse). The built CLI, the official MCP client, the real store; the
 * test's own sweep stands in for the other processes' heartbeats, which end lapsed leases.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunSecret, issueAgentToken } from '../../src/auth/index.js';
import { type Coordination, createCoordination, type HeldClaim } from '../../src/coord/index.js';
import { saveFleetRun } from '../../src/fleet/fleet-db.js';
import { recordRun } from '../../src/run/record-run.js';
import type { Store } from '../../src/store/index.js';
import { COLONY_BIN } from '../helpers/cli.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { peersSpec } from '../topology/peers-spec.js';
import { call } from './mcp-client.js';

const LEASE_MS = 1_500;
let store: Store;
let coord: Coordination;
const runId = testRunId('mcplease');
const secret = createRunSecret();

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
  const spec = peersSpec(
    { dir: '/nonexistent', base: '0'.repeat(40) },
    { runId, agents: 2, goal: 'mcp lease test', verify: 'true', claimLeaseMs: LEASE_MS },
  );
  const recorded = await recordRun(store, spec);
  if (!recorded.ok) throw new Error(recorded.error);
  await saveSecret(secret);
});

async function saveSecret(value: Uint8Array): Promise<void> {
  await saveFleetRun(store.pool, {
    runId,
    hubUrl: 'http://127.0.0.1:9/unused',
    tokenSecret: Buffer.from(value),
  });
}

afterAll(async () => {
  await coord.close();
  await store.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function heldClaims(agent: string): Promise<HeldClaim[]> {
  const held = await coord.claims.held(runId, agent);
  if (!held.ok) throw new Error(held.error);
  return held.value;
}

async function heldScopes(agent: string): Promise<string[]> {
  return (await heldClaims(agent)).map((c) => c.scope);
}

/** `colony mcp` on stdio, as an external agent starts it, with an hour's token for `agent`. */
async function stdioClient(agent: string): Promise<Client> {
  const client = new Client({ name: 'colony-test', version: '0.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [COLONY_BIN, 'mcp'],
    env: {
      ...(process.env as Record<string, string>),
      COLONY_AGENT_TOKEN: issueAgentToken(secret, { runId, agent, expiresAt: Date.now() + 3_600_000 }),
    },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

describe('colony mcp (stdio) claim leases', () => {
  it("renews the agent's claims while stdio is open; after it closes they expire", async () => {
    const client = await stdioClient('ext-1');
    let open = true;
    try {
      const granted = await call(client, 'claim', { scope: 'lib/', summary: 'port lib' });
      expect(granted.text).toMatch(/^Granted/);
      // The run's lease, not the 5-minute default: the claim was made with the run's spec.
      const [claim] = await heldClaims('ext-1');
      expect(Date.parse(claim?.leaseUntil ?? '') - Date.now()).toBeLessThanOrEqual(LEASE_MS);

      // Three leases later, with lapsed leases swept meanwhile, the claim is still held.
      for (let i = 0; i < 6; i++) {
        await sleep(LEASE_MS / 2);
        const swept = await coord.claims.sweep(runId);
        expect(swept.ok).toBe(true);
      }
      expect(await heldScopes('ext-1')).toEqual(['lib/']);

      await client.close();
      open = false;
      await sleep(2 * LEASE_MS);
      const swept = await coord.claims.sweep(runId);
      expect(swept.ok && swept.value).toBe(1);
      expect(await heldScopes('ext-1')).toEqual([]);
      const expired = await store.log.read(runId, { kinds: ['claim.expired'] });
      expect(expired.map((e) => [e.data.holder, e.data.scope])).toEqual([['ext-1', 'lib/']]);
    } finally {
      if (open) await client.close();
    }
  }, 60_000);

  it('stops renewing once the token no longer holds (the run replaced its secret)', async () => {
    const client = await stdioClient('ext-2');
    try {
      expect((await call(client, 'claim', { scope: 'docs/', summary: 'write docs' })).text).toMatch(
        /^Granted/,
      );
      await saveSecret(createRunSecret());
      await sleep(3 * LEASE_MS);
      expect((await coord.claims.sweep(runId)).ok).toBe(true);
      expect(await heldScopes('ext-2')).toEqual([]);
    } finally {
      await saveSecret(secret);
      await client.close();
    }
  }, 60_000);
});
