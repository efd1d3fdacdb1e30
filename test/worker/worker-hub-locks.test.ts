/**
 * A fleet worker's hub mirror opened again by a new worker process (the same name and folder after a
 * kill -9 mid-fetch) drops the ref locks the dead process left, which would refuse every later fetch
 * of main or an agent's branch, keeps a lock made during this process, and follows no link.
 */
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/worker/worker-hub.js';
import { makeUserRepo, sh, tempDir } from '../workspace/helpers.js';

describe('a reopened hub mirror', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("drops a dead worker's ref locks, keeps this process's, and leaves a link alone", async () => {
    const made = tempDir('colony-mirror-locks-');
    cleanup = made.cleanup;
    const user = path.join(made.dir, 'user');
    mkdirSync(user);
    const { first } = makeUserRepo(user);
    const mirror = path.join(made.dir, 'runs', 'r-1', 'hub.git');
    expect((await openMirror(mirror)).ok).toBe(true);
    sh(mirror, 'fetch', '--quiet', user, `${first}:refs/heads/main`);

    const past = new Date(Date.now() - 3_600_000 - performance.now());
    const stale = [
      path.join(mirror, 'refs', 'heads', 'main.lock'),
      path.join(mirror, 'refs', 'heads', 'agent', 'peer-1.lock'),
      path.join(mirror, 'packed-refs.lock'),
    ];
    for (const file of stale) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, '');
      utimesSync(file, past, past);
    }
    const outside = path.join(made.dir, 'outside.lock');
    writeFileSync(outside, 'keep\n');
    utimesSync(outside, past, past);
    symlinkSync(outside, path.join(mirror, 'refs', 'heads', 'link.lock'));

    expect((await openMirror(mirror)).ok).toBe(true);
    for (const file of stale) expect(existsSync(file), file).toBe(false);
    expect(existsSync(outside)).toBe(true);
    // The refs the locks blocked can be written again.
    sh(mirror, 'update-ref', 'refs/heads/main', first);
    sh(mirror, 'update-ref', 'refs/heads/agent/peer-1', first);

    const live = path.join(mirror, 'refs', 'heads', 'agent', 'peer-2.lock');
    writeFileSync(live, '');
    await openMirror(mirror);
    expect(existsSync(live)).toBe(true);
  });
});
