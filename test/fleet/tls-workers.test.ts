/**
 * A worker does not send its agents' tokens and code over plain HTTP to an owner off loopback unless
 * it was started with --insecure-http (src/fleet/tls.ts): here the owner allowed plain HTTP and
 * advertises http://10.255.255.1 (nothing listens there; the worker must not even try), the worker
 * did not, and the run ends with the worker's refusal as the agent's error. The owner runs in this
 * process; the worker is a real `colony worker`.
 */
import { describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import { buildRunSpec } from '../../src/runner/index.js';
import { openStore } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { fleetFixture, runEvents } from './fleet-harness.js';
import { fleetPeersPolicy } from './fleet-policy.js';

const fleet = fleetFixture({ model: { policy: fleetPeersPolicy(1) } });

describe('a fleet worker and plain HTTP', () => {
  it('refuses an owner that serves plain HTTP off loopback, without --insecure-http', async () => {
    const {
      url,
      repo,
      home,
      env: ownerEnv,
    } = await fleet.start('plain_http', {
      workers: ['wp1'],
      slots: 1,
      files: { 'README.md': '# plain\n' },
    });
    const env = { ...process.env, ...ownerEnv };
    const built = await buildRunSpec(
      {
        repo: repo.dir,
        goal: 'add a file',
        topology: 'peers',
        agents: 1,
        model: 'openai-chat:fake-model',
        baseUrl: fleet.fakes.model.url,
        verify: 'true',
        sandbox: 'off',
        fleet: { advertiseUrl: 'http://10.255.255.1:9', insecureHttp: true },
      },
      env,
    );
    if (!built.ok) throw new Error(built.error);
    const { spec } = built;
    const store = await openStore({ databaseUrl: url, home, quiet: true });
    try {
      await recordNewRun(store, spec, built.catalog);
      const result = await executeRun({
        store,
        spec,
        provider: built.provider,
        catalog: built.catalog,
        env,
        signal: new AbortController().signal,
        resumed: false,
      });
      if (!result.ok) throw new Error(result.error);
      const events = await runEvents(url, spec.runId);
      const ended = events.find((e) => e.kind === 'run.finished');
      expect(ended?.data.status).not.toBe('succeeded');
      // The owner warned that it serves plain HTTP off loopback.
      expect(
        events.some(
          (e) =>
            e.kind === 'warning' && /plain HTTP at http:\/\/10\.255\.255\.1:9/.test(String(e.data.message)),
        ),
      ).toBe(true);
      // The worker refused before starting the agent, and said why.
      const refusal = JSON.stringify(events.filter((e) => e.agent === 'peer-1' || e.kind === 'run.finished'));
      expect(refusal).toMatch(
        /cannot run on this worker: the fleet's hub http:\/\/10\.255\.255\.1:9 is plain HTTP/,
      );
      expect(refusal).toMatch(/colony worker --insecure-http/);
      expect(events.filter((e) => e.kind === 'model.response')).toEqual([]);
      expect(fleet.fakes.model.stats().requests).toBe(0);
    } finally {
      await store.close();
    }
  }, 240_000);
});
