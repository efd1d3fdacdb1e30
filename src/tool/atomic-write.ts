/**
 * Atomic file replacement for `write` and `edit`: the content goes to a temporary file in the same
 * folder, which is flushed and then renamed over the target. A reader, or a Colony killed at any
 * moment, sees either the old file or the new one, never an empty or partial one (a plain
 * `writeFile` truncates first). An existing target keeps its permission bits; other names of a
 * hard-linked file keep the old content (rename gives the path a new inode).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, open, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/** Marker in temporary file names: `.<name>.colony-tmp-<random>`. */
export const TEMP_MARKER = '.colony-tmp-';

/**
 * Replaces `file` with `content` (UTF-8). A symbolic link is written through to its target, as
 * `writeFile` did, so the link itself stays a link; callers have already checked that the path
 * resolves inside the worktree. Throws on I/O errors, like `writeFile`.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  // A missing file (or a dangling link, which path safety refuses anyway) is written at `file`.
  const target = await realpath(file).catch(() => file);
  const existing = await stat(target).catch(() => null);
  // rename would replace a read-only file too; refuse it as writeFile did (EACCES).
  if (existing) await access(target, constants.W_OK);
  const mode = existing ? existing.mode & 0o7777 : 0o666;
  const dir = path.dirname(target);
  const temp = path.join(
    dir,
    `.${tempStem(path.basename(target))}${TEMP_MARKER}${randomBytes(6).toString('hex')}`,
  );
  const handle = await open(temp, 'wx', mode);
  let renamed = false;
  try {
    try {
      await handle.writeFile(content, 'utf8');
      // open's mode is masked by the umask; an existing file's bits are kept exactly.
      if (existing) await handle.chmod(mode);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    renamed = true;
  } finally {
    if (!renamed) await rm(temp, { force: true });
  }
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
