/**
 * Evidence that nothing escaped a sandbox: files named with a run's marker anywhere an escape aimed,
 * and the hash of a file that must not change. Shared by the attack suite and the chaos test.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';

/** SHA-256 of the file's bytes, or null when it does not exist. */
export function sha256Of(file: string): string | null {
  return existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : null;
}

/** Files whose name contains `marker` under `root` (to `depth`; unreadable folders ignored). */
export function markerFiles(root: string, marker: string, depth?: number): string[] {
  const args = [
    root,
    '-xdev',
    ...(depth === undefined ? [] : ['-maxdepth', String(depth)]),
    '-name',
    `*${marker}*`,
  ];
  try {
    return execFileSync('find', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .filter(Boolean);
  } catch (error) {
    // find exits 1 when some folder was unreadable; its stdout still lists what it found.
    return String((error as { stdout?: string }).stdout ?? '')
      .split('\n')
      .filter(Boolean);
  }
}
