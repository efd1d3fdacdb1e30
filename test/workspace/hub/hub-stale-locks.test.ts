/**
 * A run's hub opened again by a new owner process (`colony resume` after a kill -9) drops the git
 * locks the dead owner left — the soak found `refs/colony/mr/4.lock` refusing every merge request of
 * the resumed run ("cannot lock ref 'refs/colony/mr/4'") — and keeps a lock made during this process.
 */
import { existsSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockNamedIn } from '../../../src/workspace/git/stale-locks.js';
import { createHub } from '../../../src/workspace/hub/hub.js';
import { updateRefs } from '../../../src/workspace/integration/hub-git.js';
import { addWorktree } from '../../../src/workspace/worktree.js';
import { makeUserRepo, sh, tempDir } from '../helpers.js';

/** A user repository and a run's hub made from it, in a new temporary folder. */
async function newHub(prefix: string) {
  const made = tempDir(prefix);
  const user = path.join(made.dir, 'user');
  mkdirSync(user);
  const { first } = makeUserRepo(user);
  const hubPath = path.join(made.dir, 'hub.git');
  const created = await createHub(hubPath, user, first);
  if (!created.ok) throw new Error(created.error);
  return { made, user, first, hubPath };
}

describe('a reopened hub', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("drops a dead process's ref locks, keeps this process's, and leaves a link alone", async () => {
    const { made, user, first, hubPath } = await newHub('colony-hub-locks-');
    cleanup = made.cleanup;

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

describe('a lock a killed process left in the hub after this process started', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('is waited out while it may be live, then removed: worktrees and ref updates go on', async () => {
    const { made, first, hubPath } = await newHub('colony-hub-dead-locks-');
    cleanup = made.cleanup;
    const dead = (rel: string) => {
      const file = path.join(hubPath, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, '');
      const old = new Date(Date.now() - 60_000);
      utimesSync(file, old, old);
      return file;
    };

    // The integration worktree's branch (soak seed 45: every merge request of the run failed).
    const branchLock = dead('refs/heads/integration/r-x.lock');
    const wt = await addWorktree(hubPath, path.join(made.dir, 'integration'), 'integration/r-x', first);
    expect(wt.ok, wt.ok ? '' : wt.error).toBe(true);
    expect(existsSync(branchLock)).toBe(false);

    // A pin or a landing through the queue's ref transaction.
    const pinLock = dead('refs/colony/mr/9.lock');
    expect(await updateRefs(hubPath, [{ ref: 'refs/colony/mr/9', to: first }])).toEqual({ ok: true });
    expect(existsSync(pinLock)).toBe(false);
    expect(sh(hubPath, 'rev-parse', 'refs/colony/mr/9')).toBe(first);

    // A live lock (its holder lets go 300 ms later) is waited for, not removed under it.
    const live = path.join(hubPath, 'refs', 'colony', 'mr', '10.lock');
    writeFileSync(live, '');
    const removed = new Promise<void>((resolve) =>
      setTimeout(() => {
        rmSync(live, { force: true });
        resolve();
      }, 300),
    );
    expect(await updateRefs(hubPath, [{ ref: 'refs/colony/mr/10', to: first }])).toEqual({ ok: true });
    await removed;
  });

  it("finds the lock git's error names, inside the repository only", () => {
    const hub = '/srv/runs/r1/hub.git';
    expect(lockNamedIn(`fatal: Unable to create '${hub}/refs/heads/x.lock': File exists.`, hub)).toBe(
      'refs/heads/x.lock',
    );
    expect(lockNamedIn("fatal: Unable to create '/etc/passwd.lock': File exists.", hub)).toBeNull();
    expect(lockNamedIn(`fatal: Unable to create '${hub}/../other.lock': File exists.`, hub)).toBeNull();
    expect(lockNamedIn('fatal: not a git repository', hub)).toBeNull();
  });
});
