import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import {
  formatIdentity,
  isProcessAlive,
  parseIdentity,
  processIdentity,
  sleep,
  sleepSync,
} from './process-liveness.js';

/**
 * A cross-process lock file created with O_EXCL. A lock whose holder is dead is stale and is removed;
 * waiting is bounded so a hung holder gives a clear error instead of a hang.
 */
export interface FileLock {
  release(): void;
}

export type LockResult = { ok: true; lock: FileLock } | { ok: false; error: string };

type Attempt = { ok: true; lock: FileLock } | { ok: false; holder: number | null };

function tryOnce(path: string): Attempt {
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, formatIdentity(processIdentity()));
    closeSync(fd);
    let released = false;
    return {
      ok: true,
      lock: {
        release() {
          if (released) return;
          released = true;
          try {
            unlinkSync(path);
          } catch {
            // Already gone: nothing to release.
          }
        },
      },
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch {
    return { ok: false, holder: null }; // Released between our open and read: retry.
  }
  const holder = parseIdentity(content);
  // An empty file is a holder that has not written its pid yet: live, unless it stays empty (the
  // holder died between create and write).
  const stale = holder ? !isProcessAlive(holder.pid, holder.start) : Date.now() - mtimeMs(path) > 5000;
  if (stale) {
    // Re-read right before unlinking so we do not remove a lock a third process just took.
    try {
      if (readFileSync(path, 'utf8') === content) unlinkSync(path);
    } catch {
      // Someone else removed it first.
    }
    return { ok: false, holder: null };
  }
  return { ok: false, holder: holder?.pid ?? null };
}

function mtimeMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now();
  }
}

function timeoutError(path: string, holder: number | null, timeoutMs: number): string {
  const who = holder ? `live process ${holder}` : 'another process';
  return `timed out after ${Math.round(timeoutMs / 1000)}s waiting for lock ${path} held by ${who}; if that process is hung, stop it (or remove the file)`;
}

export async function acquireFileLock(path: string, timeoutMs = 60_000): Promise<LockResult> {
  const deadline = Date.now() + timeoutMs;
  let delay = 10;
  let holder: number | null = null;
  for (;;) {
    const attempt = tryOnce(path);
    if (attempt.ok) return attempt;
    holder = attempt.holder ?? holder;
    if (Date.now() >= deadline) return { ok: false, error: timeoutError(path, holder, timeoutMs) };
    await sleep(delay);
    delay = Math.min(delay * 2, 100);
  }
}

/** Synchronous variant for the process 'exit' path. */
export function acquireFileLockSync(path: string, timeoutMs: number): LockResult {
  const deadline = Date.now() + timeoutMs;
  let holder: number | null = null;
  for (;;) {
    const attempt = tryOnce(path);
    if (attempt.ok) return attempt;
    holder = attempt.holder ?? holder;
    if (Date.now() >= deadline) return { ok: false, error: timeoutError(path, holder, timeoutMs) };
    sleepSync(20);
  }
}
