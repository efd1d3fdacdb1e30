import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { unitFiles } from './test/unit-files.js';

// Two projects, every test file in exactly one (docs/testing.md):
// - unit: the files listed in test/unit-files.ts. No Postgres; test/unit-guard.ts fails a test that starts
//   a subprocess or connects to Postgres. `npm run test:unit` runs only these.
// - integration: every other file. One embedded Postgres per run (test/global-setup.ts); real git, real
//   subprocesses, the built CLI (npm test builds dist/ first), a real Chromium.
// `npm test` runs both, two files at a time on a two-core machine (vitest's default would be cores − 1,
// one file): the whole suite ran that way on a fresh clone twice on a quiet machine (its only failures
// were three tests of one path bug, fixed; then every test passed),
// 14:59 and 14:32 against 30:08 one at a time (docs/testing.md). More cores: cores − 1.
const MAX_WORKERS = Math.max(2, availableParallelism() - 1);
const TIMEOUTS = { testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: MAX_WORKERS,
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
