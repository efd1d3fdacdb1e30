/**
 * Setup file of the `unit` project (vitest.config.ts): a unit test starts no subprocess and opens no
 * Postgres, so `npm run test:unit` stays under a minute. Every way node:child_process starts a process,
 * and every connect of the `pg` client and pool, throws here with a message that says what to do; the
 * patched child_process functions reach ESM importers too (module.syncBuiltinESMExports()). A file that
 * needs a process or the database belongs to the `integration` project: take it out of
 * test/unit-files.ts.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import pg from 'pg';
import { expect } from 'vitest';

function refusal(what: string): Error {
  const file = expect.getState().testPath ?? 'this test file';
  return new Error(
    `${what} in a unit test (${file}): unit tests start no subprocess and open no Postgres, so that ` +
      '`npm run test:unit` stays fast. Move the file to the integration project: remove it from ' +
      'test/unit-files.ts (docs/testing.md).',
  );
}

const spawning = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
for (const name of spawning) {
  const original = childProcess[name];
  const guarded = function (this: unknown, ...args: unknown[]) {
    const command = typeof args[0] === 'string' ? ` (${args[0]})` : '';
    throw refusal(`child_process.${name}${command}`);
  };
  Object.defineProperty(guarded, 'name', { value: original.name });
  (childProcess as unknown as Record<string, unknown>)[name] = guarded;
}
syncBuiltinESMExports();

for (const Connecting of [pg.Client, pg.Pool]) {
  Connecting.prototype.connect = function connect(): never {
    throw refusal('A Postgres connection');
  };
}
