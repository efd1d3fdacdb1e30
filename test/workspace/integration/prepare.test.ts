/**
 * The verify checkout made ahead of the first request (IntegrationQueue.prepare): the worktree and
 * setup are ready before anyone asks, the first request then needs neither again, and a setup that
 * failed in the background is run again and reported by the first verify.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import { openTestStore } from '../../helpers/db.js';
import { commitFiles, type Fixture, makeFixture } from './fixture.js';

let store: Store;
const fixtures: Fixture[] = [];
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  for (const f of fixtures) f.cleanup();
  await store.close();
});

const lines = (file: string): number =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '').length
    : 0;

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('a queue prepared before its first request', () => {
  it('has its verify checkout and setup done, and does not set up again for the first request', async () => {
    const f = await makeFixture(store, 'prepare');
    fixtures.push(f);
    const setupCount = path.join(f.dir, 'setup-count');
    const queue = f.queue({
      setup: `echo setup >> "${setupCount}"`,
      env: { ...process.env, VERIFY_COUNT_FILE: f.countFile },
    });
    queue.prepare();
    await until(() => lines(setupCount) === 1, 'setup');
    expect(existsSync(path.join(f.dir, 'work', 'integration', 'check.sh'))).toBe(true);
    expect(lines(f.countFile)).toBe(0);

    const alice = await f.agent('alice');
    commitFiles(alice.path, { 'src/new.txt': 'new\n' }, 'alice adds a file');
    const result = await queue.submit({ agent: 'alice', branch: alice.branch, note: 'add a file' });
    expect(result.status).toBe('landed');
    expect(lines(setupCount)).toBe(1);
    expect(lines(f.countFile)).toBe(1);
  });

  it('runs a setup that failed while preparing again for the first request, and reports it', async () => {
    const f = await makeFixture(store, 'prepare-fails');
    fixtures.push(f);
    const setupCount = path.join(f.dir, 'setup-count');
    const queue = f.queue({ setup: `echo setup >> "${setupCount}"; exit 3` });
    queue.prepare();
    await until(() => lines(setupCount) === 1, 'setup');
    const alice = await f.agent('alice');
    commitFiles(alice.path, { 'src/new.txt': 'new\n' }, 'alice adds a file');
    const result = await queue.submit({ agent: 'alice', branch: alice.branch, note: 'add a file' });
    expect(result.status).toBe('rejected');
    expect(JSON.stringify(result)).toContain('failed (exit 3)');
    expect(lines(setupCount)).toBe(2);
    expect(lines(f.countFile)).toBe(0);
  });
});
