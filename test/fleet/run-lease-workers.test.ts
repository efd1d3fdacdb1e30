/**
 * A fleet worker's claims run on the lease of the run they belong to (`RunSpec.claimLeaseMs`), not the
 * worker's default: a peer on a worker claims a scope, the grant and the claim's row carry the run's
 * lease, and the worker's heartbeat renews it often enough that it outlives several leases while the
 * peer works. The owner runs in this process (a short lease has no `colony run` flag).
 */
import { describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { buildRunSpec } from '../../src/runner/index.js';
import { openStore } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { call } from '../topology/peers-spec.js';
import { fleetFixture, runEvents, until } from './fleet-harness.js';

/** The run's lease: far from the 5-minute default; its heartbeat beats every 800 ms. */
const LEASE_MS = 4000;
const SCOPE = 'work/';

/** Opened by the test once it has looked at the held claim: the peer then releases it and answers. */
let letGo: () => void = () => {};
const held = new Promise<void>((resolve) => {
  letGo = resolve;
});

/** The peer claims work/, keeps working (its next model call waits for the test), releases, answers. */
const holder: ScriptedPolicy = async (request) => {
  const done = request.messages.filter((m) => m.role === 'tool').length;
  if (done === 0) return call('claim', { scope: SCOPE, summary: 'hold it' });
  if (done === 1) {
    await held;
    return call('release', { scope: SCOPE, outcome: 'done' });
  }
  return { text: 'done' };
};

const fleet = fleetFixture({ model: { policy: holder } });

describe("a fleet worker's claims", () => {
  it("take the run's lease and are renewed at its rate", async () => {
    const {
      url,
      repo,
      home,
      env: ownerEnv,
    } = await fleet.start('run_lease', { workers: ['wl1'], slots: 1, files: { 'README.md': '# lease\n' } });
    // The owner runs in this process: its environment is this process's with the fleet's on top.
    const env = { ...process.env, ...ownerEnv };
    const built = await buildRunSpec(
      {
        repo: repo.dir,
        goal: 'hold a claim',
        topology: 'peers',
        agents: 1,
        model: 'openai-chat:fake-model',
        baseUrl: fleet.fakes.model.url,
        verify: 'true',
        sandbox: 'off',
        fleet: {},
        claimLeaseMs: LEASE_MS,
      },
      env,
    );
    if (!built.ok) throw new Error(built.error);
    const { spec } = built;
    const store = await openStore({ databaseUrl: url, home, quiet: true });
    try {
      await recordNewRun(store, spec, built.catalog);
      const running = executeRun({
        store,
        spec,
        provider: built.provider,
        catalog: built.catalog,
        env,
        signal: new AbortController().signal,
        resumed: false,
      });
      // Whatever happens below, the peer is let go so the run can end.
      const checked = (async () => {
        const claimRow = async () =>
          (
            await store.pool.query<{ lease_ms: number; live: boolean; ended: boolean }>(
              `SELECT lease_ms, lease_until > clock_timestamp() AS live, ended_at IS NOT NULL AS ended
               FROM colony.claims WHERE run_id = $1`,
              [spec.runId],
            )
          ).rows;
        await until(async () => (await claimRow()).length > 0, 'the peer’s claim', 120_000);
        const granted = (await runEvents(url, spec.runId)).filter((e) => e.kind === 'claim.granted');
        expect(granted.map((e) => [e.agent, e.data.leaseMs])).toEqual([['peer-1', LEASE_MS]]);
        expect((await claimRow()).map((r) => r.lease_ms)).toEqual([LEASE_MS]);
        // Two and a half leases later the claim is still held: the worker renewed it at the run's rate.
        await new Promise((resolve) => setTimeout(resolve, 2.5 * LEASE_MS));
        expect(await claimRow()).toEqual([{ lease_ms: LEASE_MS, live: true, ended: false }]);
      })().finally(letGo);
      // Both settle before the store closes (a failed check still lets the run end first).
      const [result, check] = await Promise.allSettled([running, checked]);
      if (check.status === 'rejected') throw check.reason;
      if (result.status === 'rejected') throw result.reason;
      if (!result.value.ok) throw new Error(result.value.error);
      const events = await runEvents(url, spec.runId);
      expect(events.filter((e) => e.kind === 'agent.placed').map((e) => [e.agent, e.data.worker])).toEqual([
        ['peer-1', 'wl1'],
      ]);
      expect(events.filter((e) => e.kind === 'claim.expired')).toEqual([]);
      expect(events.filter((e) => e.kind === 'claim.released').map((e) => e.agent)).toEqual(['peer-1']);
    } finally {
      await store.close();
    }
  }, 240_000);
});
