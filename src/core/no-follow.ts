/**
 * File access under a folder that someone else can change (an agent's checkout, its git directory, an
 * external CLI's home): no symbolic link is ever followed, on any component of the path, and nothing
 * but a regular file is ever read (a FIFO would block Colony forever, a device could be endless).
 *
 * Race-free on Linux without openat(): each folder is opened with O_NOFOLLOW | O_DIRECTORY through
 * the magic link `/proc/self/fd/<parent>/<name>`, which resolves to the folder already opened, so a
 * folder swapped for a link after it was checked is never walked through. The last step of a write is
 * a rename inside the opened folder, which replaces a link at the target rather than writing through
 * it. The root itself is trusted (a path Colony made, outside the other party's reach).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, lstat, open, rename, rm, unlink } from 'node:fs/promises';

export type NoFollowResult<T> =
  | { ok: true; value: T }
  | { ok: false; reason: 'absent' | 'refused'; error: string };

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Regular files only; O_NONBLOCK so that opening a FIFO never waits for a writer. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** `rel` as its components; null when it could leave the root (`..`, absolute, empty parts). */
function componentsOf(rel: string): string[] | null {
  const parts = rel.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.length === 0 || parts.some((part) => part === '..' || part.includes('\0'))) return null;
  return parts;
}

const fdPath = (handle: FileHandle, name: string) => `/proc/self/fd/${handle.fd}/${name}`;

function describe(error: unknown): { reason: 'absent' | 'refused'; error: string } {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return { reason: 'absent', error: 'no such file' };
  if (code === 'ELOOP' || code === 'ENOTDIR')
    return { reason: 'refused', error: 'a symbolic link is in the way' };
  return { reason: 'refused', error: (error as Error).message };
}

/** Opens the folder `parts` under `root`, each component without following a link. */
async function openFolder(root: string, parts: readonly string[], create: boolean): Promise<FileHandle> {
  let current = await open(root, DIR_FLAGS);
  try {
    for (const part of parts) {
      let next: FileHandle;
      try {
        next = await open(fdPath(current, part), DIR_FLAGS);
      } catch (error) {
        if (!create || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        const { mkdir } = await import('node:fs/promises');
        await mkdir(fdPath(current, part)).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        });
        next = await open(fdPath(current, part), DIR_FLAGS);
      }
      await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    await current.close();
    throw error;
  }
}

/**
 * Reads `rel` under `root` (at most `maxBytes`): refused when any component is a link or the file
 * is not a regular file.
 */
export async function readNoFollow(
  root: string,
  rel: string,
  maxBytes = 16 * 1024 * 1024,
): Promise<NoFollowResult<Buffer>> {
  const parts = componentsOf(rel);
  if (!parts) return { ok: false, reason: 'refused', error: `not a path inside ${root}: ${rel}` };
  const name = parts[parts.length - 1] as string;
  let folder: FileHandle | null = null;
  let file: FileHandle | null = null;
  try {
    folder = await openFolder(root, parts.slice(0, -1), false);
    file = await open(fdPath(folder, name), READ_FLAGS);
    const stat = await file.stat();
    if (!stat.isFile()) return { ok: false, reason: 'refused', error: `${rel} is not a regular file` };
    if (stat.size > maxBytes)
      return { ok: false, reason: 'refused', error: `${rel} is larger than ${maxBytes} bytes` };
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await file.read(buffer, 0, stat.size, 0);
    return { ok: true, value: buffer.subarray(0, bytesRead) };
  } catch (error) {
    return { ok: false, ...describe(error) };
  } finally {
    await file?.close();
    await folder?.close();
  }
}

/** readNoFollow as UTF-8 text, or null for anything that is not a readable regular file. */
export async function readTextNoFollow(root: string, rel: string, maxBytes?: number): Promise<string | null> {
  const read = await readNoFollow(root, rel, maxBytes);
  return read.ok ? read.value.toString('utf8') : null;
}

/**
 * Replaces `rel` under `root` with `content`: missing folders are made, no component is followed
 * through a link, and a link at the target itself is replaced (never written through).
 */
export async function writeNoFollow(
  root: string,
  rel: string,
  content: string | Buffer,
  options: { mode?: number } = {},
): Promise<NoFollowResult<void>> {
  const parts = componentsOf(rel);
  if (!parts) return { ok: false, reason: 'refused', error: `not a path inside ${root}: ${rel}` };
  const name = parts[parts.length - 1] as string;
  let folder: FileHandle | null = null;
  try {
    folder = await openFolder(root, parts.slice(0, -1), true);
    const temp = fdPath(folder, `.${name.slice(0, 200)}.colony-tmp-${randomBytes(6).toString('hex')}`);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const handle = await open(temp, flags, options.mode ?? 0o644);
    let renamed = false;
    try {
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
      await rename(temp, fdPath(folder, name));
      renamed = true;
    } finally {
      if (!renamed) await rm(temp, { force: true });
    }
    return { ok: true, value: undefined };
  } catch (error) {
    return { ok: false, ...describe(error) };
  } finally {
    await folder?.close();
  }
}

/**
 * Removes `rel` under `root` when it is older than `before` (ms since the epoch): the entry itself
 * (a link is removed, never followed), no component on the way followed. Whether it was removed.
 */
export async function removeOlderNoFollow(root: string, rel: string, before: number): Promise<boolean> {
  const parts = componentsOf(rel);
  if (!parts) return false;
  const name = parts[parts.length - 1] as string;
  let folder: FileHandle | null = null;
  try {
    folder = await openFolder(root, parts.slice(0, -1), false);
    const entry = fdPath(folder, name);
    const info = await lstat(entry);
    if (info.isDirectory() || info.mtimeMs >= before) return false;
    await unlink(entry);
    return true;
  } catch {
    return false;
  } finally {
    await folder?.close();
  }
}
