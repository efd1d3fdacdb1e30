import { defineConfig } from 'vitest/config';
import { unitFiles } from './test/unit-files.js';

// Two projects, every test file in exactly one (docs/testing.md):
// - unit: the files listed in test/unit-files.ts. No Postgres; test/unit-guard.ts fails a test that starts
//   a subprocess or connects to Postgres. `npm run test:unit` runs only these.
// - integration: every other file. One embedded Postgres per run (test/global-setup.ts); real git, real
//   subprocesses, the built CLI (npm test builds dist/ first), a real Chromium.
// `npm test` runs both, one file at a time on a two-core machine (vitest's default, cores − 1): two at
// once was not yet shown to pass the whole suite every time (docs/testing.md).
const TIMEOUTS = { testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    pool: 'forks',
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
