/**
 * Where an open file really is, from the kernel's own record (/proc/self/fd/<fd>): checked after a
 * file is opened by a path the agent could change, so a symbolic link swapped in between a path check
 * and the open is caught. Null when it cannot be told (no /proc).
 */
import { readlinkSync } from 'node:fs';

export function openedPath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}
