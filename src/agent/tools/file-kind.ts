/**
 * Opening a file a tool will read, safely: only regular files. A FIFO with no writer blocks a plain
 * open() forever (and with it a thread of libuv's pool), a device may never end; so the file is
 * opened non-blocking and checked with fstat on the open handle (no window between check and use).
 * The path opened is the checked real one (paths.ts), with O_NOFOLLOW: a link put in its place since
 * the check is not followed, and where the open file really is is checked again on its descriptor.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { openedPath } from '../../tool/opened-path.js';
import { realProblem } from '../paths.js';

/** "a FIFO (named pipe)", "a socket", …: what a non-regular file is, for error messages. */
export function describeKind(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return info.isFile() ? 'a regular file' : 'not a regular file';
}

export type OpenedFile =
  | { ok: true; handle: FileHandle; info: Stats }
  | { ok: false; kind: 'missing' }
  | { ok: false; kind: 'bad_name'; error: string }
  | { ok: false; kind: 'not_regular'; what: string }
  | { ok: false; kind: 'refused'; error: string };

/** Where a checked path really leads (paths.ts ResolvedPath) and how the agent named it. */
export interface CheckedPath {
  real: string;
  realRoot: string;
  rel: string;
}

const CHANGED = 'the path changed while it was being opened (a symbolic link appeared); refused';

/** Opens `file.real` for reading if it is a regular file; the caller closes the handle. */
export async function openRegularFile(file: CheckedPath): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    handle = await open(
      file.real,
      constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { ok: false, kind: 'refused', error: CHANGED };
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, kind: 'missing' };
    if (code === 'ENAMETOOLONG')
      return {
        ok: false,
        kind: 'bad_name',
        error: 'a file name in the path is too long (at most 255 bytes)',
      };
    // A socket cannot be opened at all.
    if (code === 'ENXIO') return { ok: false, kind: 'not_regular', what: 'a socket' };
    throw error;
  }
  try {
    const at = openedPath(handle.fd);
    const problem = at === null ? null : realProblem(file.realRoot, at, file.rel);
    if (problem) {
      await handle.close();
      return { ok: false, kind: 'refused', error: problem };
    }
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      return { ok: false, kind: 'not_regular', what: describeKind(info) };
    }
    return { ok: true, handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Sizes in error messages: whole MiB (at least 1). */
export function mib(bytes: number): string {
  return `${Math.max(1, Math.round(bytes / 1024 / 1024))} MiB`;
}
