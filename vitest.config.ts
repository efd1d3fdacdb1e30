import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { unitFiles } from './test/unit-files.js';

// Two projects, every test file in exactly one (docs/testing.md):
// - unit: the files listed in test/unit-files.ts. No Postgres; test/unit-guard.ts fails a test that starts
//   a subprocess or connects to Postgres. `npm run test:unit` runs only these.
// - integration: every other file. One embedded Postgres per run (test/global-setup.ts); real git, real
//   subprocesses, the built CLI (npm test builds dist/ first), a real Chromium.
// `npm test` runs both. Test files run in forked processes; most of an integration test's time is spent
// waiting on its subprocesses, so a run keeps at least two files going even on a two-core machine
// (vitest's default there is one: the suite ran serially).
const TIMEOUTS = { testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        test: {
          name: 'unit',
          include: [...unitFiles],
          setupFiles: ['test/unit-guard.ts'],
          // Pure code, nothing to leak between files: one worker runs many files without re-importing
          // src/ each time (about a fifth less CPU for the project).
          isolate: false,
          ...TIMEOUTS,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...unitFiles, '**/node_modules/**'],
          globalSetup: ['test/global-setup.ts'],
          ...TIMEOUTS,
        },
      },
    ],
  },
});
