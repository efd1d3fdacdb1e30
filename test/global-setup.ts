import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../src/store/index.js';

/**
 * One throwaway COLONY_HOME for the whole test run. Opening the store here starts the embedded server
 * and runs migrations once; staying registered keeps it up, so test files (forked workers inherit
 * COLONY_HOME) and CLI child processes just connect. Teardown stops it and removes the folder.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const external = process.env.COLONY_DATABASE_URL;
  const home = mkdtempSync(join(tmpdir(), 'colony-test-'));
  process.env.COLONY_HOME = home;
  // No test's `colony serve` or `colony worker` resumes another test's killed run behind its back
  // (supervise/: on by default for users); test/supervise/ turns it on for its own processes.
  process.env.COLONY_AUTO_RESUME = 'off';
  const started = performance.now();
  const store: Store = await openStore({ home, quiet: true });
  const ms = Math.round(performance.now() - started);
  process.stderr.write(
    `[global-setup] COLONY_HOME=${home} ${external ? 'external database' : `embedded Postgres ${store.embedded?.mode} on port ${store.embedded?.port}`} in ${ms} ms\n`,
  );
  return async () => {
    await store.close();
    rmSync(home, { recursive: true, force: true });
  };
}
