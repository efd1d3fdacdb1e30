import { parseDurationMs } from '../core/duration.js';
import { DATABASE_WAIT_MS } from '../store/database-away.js';
import { UsageError } from './args.js';

/** `--wait-for-database DURATION` of the long-running commands (open-waiting.ts); `0` does not wait. */
export function databaseWaitFlag(text: string | undefined, command: string): number {
  if (text === undefined) return DATABASE_WAIT_MS;
  const ms = text === '0' ? 0 : parseDurationMs(text);
  if (ms === null)
    throw new UsageError(
      `${command}: --wait-for-database must be a duration like 2m or 30s, or 0 (got "${text}")`,
    );
  return ms;
}

export const DATABASE_WAIT_HELP = `  --wait-for-database D  how long to wait, at start, for a database that does not answer yet
                         (starting up, restarting; default 2m; 0 = fail at once). A database that
                         answers with an error (bad password, no such database) fails at once`;
