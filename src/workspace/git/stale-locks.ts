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
 * git holds a ref's lock for the milliseconds of one update: one this old has no live holder. The
 * soak found one made after a new owner had started (so not swept at open): the killed owner's
 * receive-pack, orphaned mid-push, locked the agent's branch and died, and every later push of that
 * agent was refused ("failed to update ref") for the rest of the run.
 */
export const REF_LOCK_DEAD_MS = 10_000;

/**
 * Before an update of `ref` in a repository of Colony's own (the hub): a lock on it is waited for
 * while it may have a live holder, then removed once it is `deadAfterMs` old. True when one was
 * removed. Nothing is followed (the ref names come from the push, checked to be the agent's own).
 */
export async function clearDeadRefLock(
  gitDir: string,
  ref: string,
  options: { deadAfterMs?: number; pollMs?: number } = {},
): Promise<boolean> {
  const deadAfter = options.deadAfterMs ?? REF_LOCK_DEAD_MS;
  const name = `${ref}.lock`;
  for (;;) {
    const info = await lstat(path.join(gitDir, name)).catch(() => null);
    if (!info?.isFile()) return false;
    const age = Date.now() - info.mtimeMs;
    if (age >= deadAfter) return removeOlderNoFollow(gitDir, name, Date.now() - deadAfter + 1);
    await sleep(Math.min(options.pollMs ?? 50, deadAfter - age));
  }
}
