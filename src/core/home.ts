import { join } from 'node:path';

/** A run's folder under Colony's state folder (see `resolveHome` in src/store). */
export function runDir(home: string, runId: string): string {
  return join(home, 'runs', runId);
}
