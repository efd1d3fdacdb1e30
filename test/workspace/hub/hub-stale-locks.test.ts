/**
 * A run's hub opened again by a new owner process (`colony resume` after a kill -9) drops the git
 * locks the dead owner left — the soak found `refs/colony/mr/4.lock` refusing every merge request of
 * the resumed run ("cannot lock ref 'refs/colony/mr/4'") — and keeps a lock made during this process.
 */
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHub } from '../../../src/workspace/hub/hub.js';
import { makeUserRepo, sh, tempDir } from '../helpers.js';

describe('a reopened hub', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("drops a dead process's ref locks, keeps this process's, and leaves a link alone", async () => {
    const made = tempDir('colony-hub-locks-');
    cleanup = made.cleanup;
    const user = path.join(made.dir, 'user');
    mkdirSync(user);
    const { first } = makeUserRepo(user);
    const hubPath = path.join(made.dir, 'hub.git');
    const created = await createHub(hubPath, user, first);
    if (!created.ok) throw new Error(created.error);

    const past = new Date(Date.now() - 3_600_000 - performance.now());
    const stale = [
      path.join(hubPath, 'refs', 'colony', 'mr', '4.lock'),
      path.join(hubPath, 'refs', 'heads', 'main.lock'),
      path.join(hubPath, 'packed-refs.lock'),
    ];
    for (const file of stale) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, '');
      utimesSync(file, past, past);
    }
    const outside = path.join(made.dir, 'outside.lock');
    writeFileSync(outside, 'keep\n');
    utimesSync(outside, past, past);
    const link = path.join(hubPath, 'refs', 'colony', 'link.lock');
    symlinkSync(outside, link);

    const reopened = await createHub(hubPath, user, first);
    expect(reopened).toMatchObject({ ok: true, created: false });
    for (const file of stale) expect(existsSync(file)).toBe(false);
    expect(existsSync(outside)).toBe(true);
    // The ref the lock blocked can be written again.
    sh(hubPath, 'update-ref', 'refs/colony/mr/4', first);

    const live = path.join(hubPath, 'refs', 'colony', 'mr', '5.lock');
    writeFileSync(live, '');
    await createHub(hubPath, user, first);
    expect(existsSync(live)).toBe(true);
  });
});
