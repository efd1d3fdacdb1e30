/**
 * `colony runs | head -1` (and `show`, `logs --json`, `models`): a reader that closed the pipe ends
 * the command quietly (exit 0, no stack trace). The test closes its end of stdout before the child
 * can write a byte; the read commands read a recorded run whose output is longer than a pipe's buffer.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { COLONY_BIN } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { agentSteps, recordRun } from '../server/run-fixture.js';

let store: Store;
let runId = '';

beforeAll(async () => {
  store = await openTestStore();
  runId = await recordRun(store, 'epipe');
  // Enough events that `logs --json` writes far more than a pipe holds (64 KiB).
  for (const e of agentSteps(runId, 'peer-1', 400, 10)) await store.log.append(e);
  await store.log.flush();
});
afterAll(async () => {
  await store?.close();
});

function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [COLONY_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a closed stdout', () => {
  it.each([['models'], ['runs'], ['show', '<run>'], ['logs', '<run>', '--json']])(
    'ends colony %s quietly',
    async (...args) => {
      const result = await withClosedStdout(args.map((a) => (a === '<run>' ? runId : a)));
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    },
  );
});
