/**
 * A new run from start to exit code, in the foreground: record it, run it (printing events and the
 * summary), let the command print what it adds, and map the final status to the exit code. Shared
 * by the demos and `colony workflow`.
 */
import type { Store } from '../store/index.js';
import { exitCodeFor, type RunSummary } from '../view/summary.js';
import { runInForeground } from './live-run.js';
import { type PreparedRun, recordNewRun } from './new-run.js';
import { withStore } from './store-access.js';

export interface ForegroundRunOptions {
  json: boolean;
  /** Print nothing but the summary (the caller prints its own framing). */
  quietEvents?: boolean;
  /** Called once the run is recorded, before it starts. */
  onRecorded?: () => void;
}

export async function runNewInForeground(
  prepared: PreparedRun,
  options: ForegroundRunOptions,
  after?: (store: Store, summary: RunSummary) => Promise<void> | void,
): Promise<number> {
  return withStore(async (store) => {
    await recordNewRun(store, prepared.spec, prepared.catalog);
    options.onRecorded?.();
    const summary = await runInForeground({
      store,
      spec: prepared.spec,
      provider: prepared.provider,
      catalog: prepared.catalog,
      json: options.json,
      resumed: false,
      ...(options.quietEvents ? { quietEvents: true } : {}),
    });
    await after?.(store, summary);
    return exitCodeFor(summary.status);
  });
}
