/**
 * Running a topology from a program: a RunSpec-like options object in, the run's summary out. The
 * steps of `colony run`: build and check the spec (runner/, the same builder as the CLI's), record the
 * run and its `run.started`, execute it durably (so `colony resume` can finish it), without flags,
 * config files or terminal output. Defaults are runner/defaults.ts (RUN_DEFAULTS).
 */

import type { StoredEvent } from '../core/events.js';
import { recordRun } from '../run/record-run.js';
import { runEndpoints } from '../run/run-catalog.js';
import type { RunSlotSettings } from '../run/run-slots-run.js';
import { buildRunSpec, type SpecOptions } from '../runner/index.js';
import { type Store, type StoreOptions, tryOpenStore } from '../store/index.js';
import { executeRun } from '../topology/execute-run.js';
import type { RunSummary } from '../view/summary.js';

/** The builder's options less the ones only `colony run` offers (merge approval, fleet workers, agent CLIs). */
type LibrarySpecOptions = Omit<SpecOptions, 'approveMerges' | 'fleet' | 'agentCli'>;

export interface RunOptions extends LibrarySpecOptions {
  /** An open store to use (left open); default: one opened with `storeOptions` and closed at the end. */
  store?: Store;
  storeOptions?: StoreOptions;
  /** API keys, base URLs and the agents' command environment (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Aborting ends the run as stopped (resumable with `colony resume`). */
  signal?: AbortSignal;
  /** Every event the run writes, as it is written. */
  onEvent?: (event: StoredEvent) => void;
  /** Per-server run slots (limit, wait or fail); defaults from the environment. */
  runSlots?: RunSlotSettings;
}

export type RunOutcome =
  | {
      ok: true;
      runId: string;
      summary: RunSummary;
      /** Uncommitted changes in the repository that the run did not see (it starts from `base`). */
      dirty: string[];
    }
  /** `runId` is set when the run was recorded before the failure (then `colony resume` may finish it). */
  | { ok: false; error: string; runId?: string };

/** Runs a topology to its end. Errors in the options come back as `{ ok: false }`, nothing is recorded. */
export async function runTopology(options: RunOptions): Promise<RunOutcome> {
  const env = options.env ?? process.env;
  const built = await buildRunSpec(options, env);
  if (!built.ok) return { ok: false, error: built.error };
  const { spec, catalog, dirty } = built;

  let store = options.store;
  if (!store) {
    const opened = await tryOpenStore(options.storeOptions);
    if (!opened.ok) return { ok: false, error: `cannot open Colony's database: ${opened.error}` };
    store = opened.store;
  }
  try {
    const recorded = await recordRun(store, spec, runEndpoints(spec, catalog));
    if (!recorded.ok) return recorded;
    const result = await executeRun({
      store,
      spec,
      provider: built.provider,
      catalog,
      env,
      signal: options.signal ?? new AbortController().signal,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      resumed: false,
      ...(options.runSlots ? { runSlots: options.runSlots } : {}),
    });
    return result.ok
      ? { ok: true, runId: spec.runId, summary: result.summary, dirty }
      : { ok: false, error: result.error, runId: spec.runId };
  } finally {
    if (!options.store) await store.close();
  }
}
