import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests share one embedded Postgres per COLONY_HOME; files run in parallel processes.
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
  },
});
