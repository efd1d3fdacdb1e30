import { randomBytes } from 'node:crypto';

/** Run ids are short, sortable by creation time and safe in branch names: `r-<time36>-<rand>`. */
export function newRunId(now = Date.now()): string {
  return `r-${now.toString(36)}-${randomBytes(3).toString('hex')}`;
}
