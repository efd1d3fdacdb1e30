/**
 * Atomic file replacement for `write` and `edit`: the content goes to a temporary file in the same
 * folder, which is flushed and then renamed over the target. A reader, or a Colony killed at any
 * moment, sees either the old file or the new one, never an empty or partial one (a plain
 * `writeFile` truncates first). An existing target keeps its permission bits; other names of a
 * hard-linked file keep the old content (rename gives the path a new inode).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, lstat, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { openedPath } from './opened-path.js';

/** Marker in temporary file names: `.<name>.colony-tmp-<random>`. */
export const TEMP_MARKER = '.colony-tmp-';

/**
 * Replaces `file` with `content` (UTF-8). `file` is a real path the caller has checked (every link in
 * it resolved: a link inside the worktree is written through by passing its target): nothing here
 * follows a link again. A symbolic link found at `file` now was put there since the check and is
 * refused (ELOOP); the temporary file is created with O_EXCL (never through a link) and its real
 * place confirmed on its descriptor before it is renamed over `file` (rename replaces the name, never
 * follows it). Left: a parent folder swapped for a link between that confirmation and the rename,
 * which needs a process of the agent's running meanwhile (paths.ts). Throws on I/O errors, like
 * `writeFile`.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const existing = await lstat(file).catch(() => null);
  if (existing?.isSymbolicLink()) throw linkAppeared(file);
  // rename would replace a read-only file too; refuse it as writeFile did (EACCES).
  if (existing) await access(file, constants.W_OK);
  const mode = existing ? existing.mode & 0o7777 : 0o666;
  const dir = path.dirname(file);
  const temp = path.join(
    dir,
    `.${tempStem(path.basename(file))}${TEMP_MARKER}${randomBytes(6).toString('hex')}`,
  );
  const handle = await open(temp, 'wx', mode);
  let renamed = false;
  let madeAt = temp;
  try {
    try {
      const at = openedPath(handle.fd);
      if (at !== null && at !== temp) {
        madeAt = at;
        throw linkAppeared(dir);
      }
      await handle.writeFile(content, 'utf8');
      // open's mode is masked by the umask; an existing file's bits are kept exactly.
      if (existing) await handle.chmod(mode);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    renamed = true;
  } finally {
    if (!renamed) await rm(madeAt, { force: true });
  }
}

function linkAppeared(where: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(
    `a symbolic link appeared at ${where} after the path was checked`,
  );
  error.code = 'ELOOP';
  return error;
}

/**
 * The target's name as the start of its temporary file's name, cut to 200 bytes (at a character
 * boundary): the marker and random part add 25 bytes, and a name of 231–255 bytes is valid while
 * one of 256 is not (ENAMETOOLONG).
 */
function tempStem(name: string): string {
  const bytes = Buffer.from(name, 'utf8');
  if (bytes.length <= 200) return name;
  let end = 200;
  // Back up over continuation bytes (10xxxxxx) so no character is cut in half.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
