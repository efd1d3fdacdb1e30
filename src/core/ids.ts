import { randomBytes } from 'node:crypto';

/** Run ids are short, sortable by creation time and safe in branch names: `r-<time36>-<rand>`. */
export function newRunId(now = Date.now()): string {
  return `r-${now.toString(36)}-${randomBytes(3).toString('hex')}`;
}

export function isRunId(value: string): boolean {
  return /^r-[0-9a-z]+-[0-9a-f]{6}$/.test(value);
}
