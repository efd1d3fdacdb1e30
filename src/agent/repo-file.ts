/**
 * Reading a file of the user's repository (or an agent's checkout) into a prompt, as hostile input:
 * through the same check as the file tools (paths.ts), so a link that leads out of the checkout or
 * into `.git` is shown as a link and never followed (a repository's `AGENTS.md -> ~/.ssh/id_rsa` or
 * `-> /proc/self/environ` must not reach the model or the log); only regular files are opened,
 * non-blocking and with O_NOFOLLOW (a FIFO would block Colony's whole process, a device may never
 * end), and at most `maxBytes` of one is read.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync } from 'node:fs';
import path from 'node:path';
import { openedPath } from '../tool/opened-path.js';
import { realProblem, resolveInside } from './paths.js';

export type RepoFile =
  | { kind: 'text'; text: string }
  /** Not read: a link that leads out of the checkout or into git's data, or one that cannot be resolved. */
  | { kind: 'link'; target: string }
  /** Not read: a FIFO, a device, a folder, … (`what` says which). */
  | { kind: 'other'; what: string };

/** `name` (relative to `root`), or null when it does not exist. */
export function readRepoFile(root: string, name: string, maxBytes: number): RepoFile | null {
  const named = path.join(root, name);
  const own = lstatOrNull(named);
  if (!own) return null;
  const link = own.isSymbolicLink() ? readlinkOrUnknown(named) : null;
  const resolved = resolveInside(root, name);
  if (!resolved.ok)
    return link !== null ? { kind: 'link', target: link } : { kind: 'other', what: 'refused' };
  let fd: number;
  try {
    fd = openSync(
      resolved.real,
      constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW,
    );
  } catch {
    return link !== null ? { kind: 'link', target: link } : { kind: 'other', what: 'unreadable' };
  }
  try {
    const at = openedPath(fd);
    if (at !== null && realProblem(resolved.realRoot, at, name) !== null)
      return { kind: 'link', target: link ?? at };
    const info = fstatSync(fd);
    if (!info.isFile()) return { kind: 'other', what: kindOf(info) };
    const buffer = Buffer.alloc(Math.min(maxBytes, info.size));
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { kind: 'text', text: buffer.subarray(0, filled).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}

/** What a file that was not read is, in the prompt's words. */
export function describeUnread(file: Exclude<RepoFile, { kind: 'text' }>): string {
  return file.kind === 'link' ? `(a link to ${file.target}, not followed)` : `(${file.what}, not read)`;
}

function lstatOrNull(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

function readlinkOrUnknown(file: string): string {
  try {
    return readlinkSync(file);
  } catch {
    return '?';
  }
}

function kindOf(info: ReturnType<typeof fstatSync>): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}
