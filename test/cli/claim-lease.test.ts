/**
 * `--claim-lease DURATION` / config `claimLease`: the run's claim lease reaches its spec
 * (RunSpec.claimLeaseMs, which the run's coordination and its fleet workers take) in every topology;
 * a lease under a second is refused naming the setting.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../../src/cli/config.js';
import { prepareRun } from '../../src/cli/new-run.js';
import { createUserRepo } from '../helpers/user-repo.js';

/** A run the builder accepts: a priced model (its key below) and a verify command for peers. */
const RUNNABLE = { sandbox: 'off', model: 'gpt-5-mini', verify: 'true' } as const;
const KEYS = { OPENAI_API_KEY: 'sk-test' };

const repo = () => createUserRepo({ 'README.md': '# lease\n' }, 'colony-lease-').dir;

describe('the claim lease of a run', () => {
  it.each(['solo', 'peers', 'orchestrated'] as const)(
    'reaches the %s spec from the flag',
    async (topology) => {
      const loaded = loadConfig({ flags: { claimLease: '45s' }, env: {}, cwd: process.cwd() });
      if (!loaded.ok) throw new Error(loaded.error);
      const prepared = await prepareRun(
        { repo: repo(), goal: 'g', config: { ...loaded.config, ...RUNNABLE }, topology },
        KEYS,
      );
      expect(prepared.spec.claimLeaseMs).toBe(45_000);
    },
  );

  it('stays unset (the 5-minute default of coord/claims.ts) when not given', async () => {
    const prepared = await prepareRun(
      { repo: repo(), goal: 'g', config: { ...DEFAULT_CONFIG, ...RUNNABLE }, topology: 'peers' },
      KEYS,
    );
    expect(prepared.spec.claimLeaseMs).toBeUndefined();
  });

  it('refuses a lease under a second', () => {
    const loaded = loadConfig({ flags: { claimLease: '200ms' }, env: {}, cwd: process.cwd() });
    expect(loaded.ok).toBe(false);
    expect(loaded.ok ? '' : loaded.error).toMatch(/claimLease.*at least 1s/);
  });
});
