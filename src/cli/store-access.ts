import { openStoreWaiting, type Store, tryOpenStore } from '../store/index.js';
import { UsageError } from './args.js';

/**
 * Opens the store for a command, turning a failure into one clear line. A long-running service passes
 * `waitMs`: it then waits that long for a database that does not answer yet (open-waiting.ts).
 */
export async function withStore<T>(
  fn: (store: Store) => Promise<T>,
  options: { waitMs?: number } = {},
): Promise<T> {
  const opened =
    options.waitMs === undefined
      ? await tryOpenStore()
      : await openStoreWaiting({
          waitMs: options.waitMs,
          say: (line) => process.stderr.write(`colony: ${line}\n`),
        });
  if (!opened.ok) throw new CliFailure(`cannot open Colony's database: ${opened.error}`);
  try {
    return await fn(opened.store);
  } finally {
    await opened.store.close();
  }
}

/** A failure that is not a usage error: printed as one line, exit code 1. */
export class CliFailure extends Error {}

export async function requireRun(store: Store, runId: string): Promise<void> {
  const run = await store.runs.getRun(runId);
  if (!run) throw new UsageError(`no such run: ${runId} (see colony runs)`);
}
