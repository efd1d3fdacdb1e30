/**
 * The run's hub: a bare clone of the user's repository in Colony's state folder. Agents' worktrees
 * and branches live in it; the user's repository is only read (and later fetched into).
 *
 * Creation is crash-safe and idempotent: the clone is made in a temporary sibling folder and renamed
 * into place when complete, so `hubPath` is either absent or a whole hub; a re-run reuses it.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { TEMP_MARKER } from '../../tool/atomic-write.js';
import { git, gitError } from '../git/git.js';
import { removeStaleRefLocks } from '../git/stale-locks.js';
import { HUB_MAIN, readHubMain } from './main.js';

export { HUB_MAIN };

export type HubResult = { ok: true; hubPath: string; created: boolean } | { ok: false; error: string };

export async function createHub(hubPath: string, userRepo: string, baseCommit: string): Promise<HubResult> {
  const abs = path.resolve(hubPath);
  if (await exists(abs)) {
    // A hub made by an earlier process (this run resumed): its locks are a dead process's.
    await removeStaleRefLocks(abs);
    return reuseHub(abs, baseCommit);
  }
  await mkdir(path.dirname(abs), { recursive: true });
  await removeStaleTemporaries(abs);
  const tmp = `${abs}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  // A plain local path (no --local flag) hard-links objects when it can and silently copies when
  // the state folder is on another file system; an explicit --local would fail there instead.
  const clone = await git(['clone', '--bare', '--quiet', '--', path.resolve(userRepo), tmp], {
    cwd: path.dirname(abs),
  });
  if (!clone.ok) {
    await rm(tmp, { recursive: true, force: true });
    return { ok: false, error: `could not create hub from ${userRepo}: ${gitError(clone)}` };
  }
  const prepared = await prepareHub(tmp, baseCommit);
  if (!prepared.ok) {
    await rm(tmp, { recursive: true, force: true });
    return prepared;
  }
  try {
    await rename(tmp, abs);
  } catch {
    // Another process finished first: use its hub.
    await rm(tmp, { recursive: true, force: true });
    if (await exists(abs)) return reuseHub(abs, baseCommit);
    return { ok: false, error: `could not move the new hub into place at ${abs}` };
  }
  return { ok: true, hubPath: abs, created: true };
}

/** Point `main` at the base, make it HEAD, and drop branches that would collide with ours. */
async function prepareHub(
  hub: string,
  baseCommit: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const has = await git(['cat-file', '-e', `${baseCommit}^{commit}`], { cwd: hub });
  if (!has.ok) return { ok: false, error: `base commit ${baseCommit} is not in the repository` };
  const refs = await git(['for-each-ref', '--format=%(refname)', 'refs/heads/agent/', 'refs/heads/colony/'], {
    cwd: hub,
  });
  for (const ref of refs.stdout.split('\n').filter((line) => line !== '')) {
    await git(['update-ref', '-d', ref], { cwd: hub });
  }
  const steps: string[][] = [
    ['update-ref', `refs/heads/${HUB_MAIN}`, baseCommit],
    ['symbolic-ref', 'HEAD', `refs/heads/${HUB_MAIN}`],
    // Keep reflogs in the hub: nothing an agent did should be unrecoverable.
    ['config', 'core.logAllRefUpdates', 'always'],
  ];
  for (const args of steps) {
    const result = await git(args, { cwd: hub });
    if (!result.ok) return { ok: false, error: `could not prepare hub: ${gitError(result)}` };
  }
  await ensureExcludes(hub);
  return { ok: true };
}

/**
 * Files every checkout ignores (the hub's info/exclude is shared by its worktrees; each agent
 * repository gets the same file): the temporary file of an atomic write that a crash left behind must
 * never be committed.
 */
export const HUB_EXCLUDES = [`.*${TEMP_MARKER}*`];

async function ensureExcludes(hub: string): Promise<void> {
  const file = path.join(hub, 'info', 'exclude');
  const current = await readFile(file, 'utf8').catch(() => '');
  const missing = HUB_EXCLUDES.filter((line) => !current.split('\n').includes(line));
  if (missing.length === 0) return;
  await mkdir(path.dirname(file), { recursive: true });
  await appendFile(file, `${current === '' || current.endsWith('\n') ? '' : '\n'}${missing.join('\n')}\n`);
}

async function reuseHub(hub: string, baseCommit: string): Promise<HubResult> {
  const gitDir = await git(['rev-parse', '--is-bare-repository', '--absolute-git-dir'], { cwd: hub });
  const [isBare, dir] = gitDir.stdout.trim().split('\n');
  if (!gitDir.ok || isBare !== 'true' || path.resolve(dir ?? '') !== hub) {
    return { ok: false, error: `hub folder exists but is not a bare git repository: ${hub}` };
  }
  if ((await readHubMain(hub)) === null)
    return { ok: false, error: `hub at ${hub} has no ${HUB_MAIN} branch` };
  const has = await git(['cat-file', '-e', `${baseCommit}^{commit}`], { cwd: hub });
  if (!has.ok) return { ok: false, error: `hub at ${hub} does not contain the base commit ${baseCommit}` };
  // `main` is left as it is: after a crash it may already hold landed work.
  await ensureExcludes(hub);
  return { ok: true, hubPath: hub, created: false };
}

/** Temporary clones left by a crashed process (its pid is gone). */
async function removeStaleTemporaries(hub: string): Promise<void> {
  const prefix = `${path.basename(hub)}.tmp-`;
  const siblings = await readdir(path.dirname(hub)).catch(() => [] as string[]);
  for (const name of siblings) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) {
      await rm(path.join(path.dirname(hub), name), { recursive: true, force: true });
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exists(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null)) !== null;
}
