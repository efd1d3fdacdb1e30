/**
 * Errors of `write` and `edit` as the model should read them: a full disk or a read-only file system
 * is not a bug in the call, and the model needs to know that nothing was written (the atomic write
 * leaves the old file in place and removes its temporary file).
 */
import { errorMessage } from '../../tool/define.js';

const CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on device: the disk holding the worktree is full',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EFBIG: 'the file is too large for the file system',
  ENAMETOOLONG: 'a file name is too long (at most 255 bytes)',
  ELOOP: 'a symbolic link appeared in the path after it was checked; refused, nothing followed it',
};

export function describeWriteError(rel: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const cause = code ? CAUSES[code] : undefined;
  if (!cause) return `could not write ${rel}: ${errorMessage(error)}`;
  const hint = code === 'ENOSPC' || code === 'EDQUOT' ? '; free some space (or write less) and retry' : '';
  return `could not write ${rel} (${code}): ${cause}; nothing was written, the file is unchanged${hint}`;
}
