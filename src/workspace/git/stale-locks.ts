/**
 * Git's lock files left by a process that died holding them (kill -9 of a fleet worker or a run's
 * owner during `git add`, a ref update): git refuses every later command on that file ("Unable to
 * create '…/index.lock': File exists"), so an agent's merge_request failed for good after its worker
 * restarted under its name (the soak, issue 30) and its work never landed.
 *
 * A repository Colony opens in a new process had no git of this process running in it: a lock older
 * than this process is stale. Only the locks Colony's own git takes are removed, by fixed name in the
 * git directory (which the agent can write: nothing is followed, a planted link is removed as a link).
 */
import { realpathSync } from 'node:fs';
import { lstat, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { removeOlderNoFollow } from '../../core/no-follow.js';

/** When this process started (ms since the epoch): locks older than that are not ours. */
const PROCESS_START = Math.floor(performance.timeOrigin);

/** Removes the stale locks of `gitDir` among its index, HEAD, packed refs and these branches' refs. */
export async function removeStaleLocks(gitDir: string, branches: readonly string[]): Promise<string[]> {
  const names = [
    'index.lock',
    'HEAD.lock',
    'packed-refs.lock',
    ...branches.map((branch) => `refs/heads/${branch}.lock`),
  ];
  const removed: string[] = [];
  for (const name of names) if (await removeOlderNoFollow(gitDir, name, PROCESS_START)) removed.push(name);
  return removed;
}

/**
 * A repository of Colony's own (the run's hub), opened by a new owner process after a kill -9: every
 * lock under `refs/` (a merge request's pin, a branch move), `packed-refs.lock` and `HEAD.lock` older
 * than this process. The soak found a pin's lock (`refs/colony/mr/4.lock`) refusing every later
 * merge request of the resumed run. Links and other entries are left alone; nothing is followed.
 */
export async function removeStaleRefLocks(gitDir: string): Promise<string[]> {
  const removed: string[] = [];
  const visit = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(gitDir, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) await visit(child);
      else if (entry.isFile() && entry.name.endsWith('.lock')) {
        const info = await lstat(path.join(gitDir, child)).catch(() => null);
        if (info?.isFile() && info.mtimeMs < PROCESS_START) {
          await unlink(path.join(gitDir, child)).catch(() => {});
          removed.push(child);
        }
      }
    }
  };
  await visit('refs');
  for (const name of ['packed-refs.lock', 'HEAD.lock'])
    if (await removeOlderNoFollow(gitDir, name, PROCESS_START)) removed.push(name);
  return removed;
}

/**
 * git holds a lock for the milliseconds of one update: one this old has no live holder. Soak seed 44
 * and 45 found such locks made just *after* a resumed owner had started (so not swept at open): the
 * killed owner's orphaned git (a push's `receive-pack`, the integration worktree's `worktree add`)
 * took a lock and was killed holding it, and every later update of that ref failed for the rest of
 * the run (an agent's pushes; every merge request, "cannot lock ref 'refs/heads/integration/…'").
 */
export const REF_LOCK_DEAD_MS = 10_000;

/**
 * Before (or after failing) an update in a repository of Colony's own (the hub): the lock `rel`
 * (relative to `gitDir`) is waited for while it may have a live holder, then removed once it is
 * `deadAfterMs` old. True when one was removed. Nothing is followed.
 */
export async function clearDeadLock(
  gitDir: string,
  rel: string,
  options: { deadAfterMs?: number; pollMs?: number } = {},
): Promise<boolean> {
  const deadAfter = options.deadAfterMs ?? REF_LOCK_DEAD_MS;
  for (;;) {
    const info = await lstat(path.join(gitDir, rel)).catch(() => null);
    if (!info?.isFile()) return false;
    const age = Date.now() - info.mtimeMs;
    if (age >= deadAfter) return removeOlderNoFollow(gitDir, rel, Date.now() - deadAfter + 1);
    await sleep(Math.min(options.pollMs ?? 50, deadAfter - age));
  }
}

/** The same for the lock of a ref (`refs/heads/agent/a` → its `.lock`). */
export function clearDeadRefLock(
  gitDir: string,
  ref: string,
  options: { deadAfterMs?: number; pollMs?: number } = {},
): Promise<boolean> {
  return clearDeadLock(gitDir, `${ref}.lock`, options);
}

/**
 * Runs `attempt`; when it fails on a lock its error names inside `gitDir`, runs it once more after the
 * lock is gone or dead (clearDeadLock). For Colony's own repositories (the hub and its worktrees).
 */
export async function pastDeadLock<T extends { ok: boolean }>(
  gitDir: string,
  attempt: () => Promise<T>,
  errorOf: (failed: T) => string,
): Promise<T> {
  const first = await attempt();
  if (first.ok) return first;
  const lock = lockNamedIn(errorOf(first), gitDir);
  if (lock === null) return first;
  await clearDeadLock(gitDir, lock);
  return attempt();
}

/**
 * The lock git's error names ("Unable to create '…/x.lock': File exists"), relative to `gitDir`, or
 * null when there is none or it is not inside `gitDir`.
 */
export function lockNamedIn(stderr: string, gitDir: string): string | null {
  const named = /Unable to create '([^'\n]+\.lock)': File exists/.exec(stderr)?.[1];
  if (!named) return null;
  // git names it from its working directory as the kernel resolved it (links resolved).
  for (const dir of [gitDir, realOrNull(gitDir)]) {
    if (dir === null) continue;
    const rel = path.relative(dir, path.resolve(dir, named));
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  }
  return null;
}

function realOrNull(dir: string): string | null {
  try {
    return realpathSync(dir);
  } catch {
    return null;
  }
}
