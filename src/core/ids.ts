import { randomBytes } from 'node:crypto';

/** Run ids are short, sortable by creation time and safe in branch names: `r-<time36>-<rand>`. */
export function newRunId(now = Date.now()): string {
  return `r-${now.toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** A run id as newRunId makes them (a caller-chosen id must look the same: it names a branch). */
export function isRunId(text: string): boolean {
  return /^r-[0-9a-z]{1,12}-[0-9a-f]{6}$/.test(text);
}
