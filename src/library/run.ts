/**
 * Running a topology from a program: a RunSpec-like options object in, the run's summary out. The
 * steps of `colony run`: inspect the repository, build and validate the spec, record the run and its
 * `run.started`, execute it durably (so `colony resume` can finish it), without flags, config files
 * or terminal output. Defaults are the CLI's (DEFAULT_CONFIG).
 */

import { resolve } from 'node:path';
import { DEFAULT_CONFIG } from '../cli/config.js';
import { runCatalog, runEndpoints, unpricedUnderMoneyBudget } from '../cli/model-catalog.js';
import { parseDurationMs } from '../core/duration.js';
import type { StoredEvent } from '../core/events.js';
import { newRunId } from '../core/ids.js';
import { recordRun } from '../run/record-run.js';
import type { RunSlotSettings } from '../run/run-slots-run.js';
import type { RunSpec } from '../run/run-spec.js';
import { runSpecSchema } from '../run/run-spec-schema.js';
import { isEnvName, resolveSandboxSetting, type SandboxMode } from '../sandbox/index.js';
import { type Store, type StoreOptions, tryOpenStore } from '../store/index.js';
import { executeRun } from '../topology/execute-run.js';
import type { RunSummary } from '../view/summary.js';
import { readProgramSource } from '../workflow/load.js';
import { inspectUserRepo } from '../workspace/repo.js';

/** The RunSpec fields a caller may set as they are (each optional; see RunSpec for their meaning). */
const SPEC_FIELDS = [
  'agents',
  'concurrency',
  'baseUrl',
  'customModels',
  'scenario',
  'setup',
  'verify',
  'mergeVerify',
  'idleMs',
  'claimLeaseMs',
  'integrators',
  'maxSteps',
  'leadMaxSteps',
  'subagentMaxSteps',
  'maxStartsPerAgent',
  'maxAgents',
  'profiles',
  'accept',
  'acceptRounds',
  'budgetUsd',
  'budgetTokens',
  'profile',
  'stream',
  'modelTimeoutMs',
  'maxRetries',
  'bashTimeoutS',
] as const satisfies readonly (keyof RunSpec)[];

type SpecFields = Partial<Pick<RunSpec, (typeof SPEC_FIELDS)[number]>>;

export interface RunOptions extends SpecFields {
  /** The git repository (any folder inside it). The result is fetched into it as colony/<run-id>. */
  repo: string;
  goal: string;
  /** A known model id or `<protocol>:<model-name>` (see `colony models`); `scripted` needs `scenario`. */
  model: string;
  /** Default `solo`; `workflow` when `workflow` is given. peers needs `verify`. */
  topology?: RunSpec['topology'];
  /** A workflow program (.ts needs the typescript package, or .js/.mjs) and its arguments. */
  workflow?: { file: string; args?: Record<string, string> };
  /** Start from this commit (default HEAD). */
  base?: string;
  /** End the run as deadline_exceeded after this long (default 24 h). */
  deadlineMs?: number;
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
  /**
   * Agents' commands, setup and checks in a bubblewrap sandbox (docs/sandbox.md), as `--sandbox`:
   * 'on' (default; an error where bubblewrap cannot run), 'auto' (uncontained there, and the summary
   * says so) or 'off'.
   */
  sandbox?: SandboxMode;
  /** The sandbox shares the host's network (setup does on the base commit's tree anyway). */
  allowNetwork?: boolean;
  /** Names of environment variables passed into the sandbox. */
  passEnv?: string[];
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
  const built = await buildSpec(options);
  if (!built.ok) return built;
  const { spec, dirty } = built;
  const badName = (options.passEnv ?? []).find((name) => !isEnvName(name));
  if (badName !== undefined) return { ok: false, error: `passEnv needs variable names, got "${badName}"` };
  const sandbox = await resolveSandboxSetting(
    { mode: options.sandbox ?? 'on', network: options.allowNetwork ?? false, passEnv: options.passEnv ?? [] },
    env,
  );
  if (!sandbox.ok) return { ok: false, error: sandbox.error };
  spec.sandbox = sandbox.value;
  const catalog = runCatalog(spec, env);
  const provider = catalog.provider();
  if (!provider.ok) return { ok: false, error: provider.error };
  const unpriced = unpricedUnderMoneyBudget(spec, catalog);
  if (unpriced)
    return {
      ok: false,
      error:
        `budgetUsd ${spec.budgetUsd} cannot limit ${unpriced}: it has no prices, so its calls would cost ` +
        'nothing against the budget. Set budgetTokens too, or use a model with prices (customModels with prices)',
    };
  for (const [name, profile] of Object.entries(spec.profiles ?? {})) {
    const own = profile.model ? catalog.provider(profile.model) : null;
    if (own && !own.ok) return { ok: false, error: `profile "${name}": ${own.error}` };
  }

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
      provider: provider.provider,
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

type Built = { ok: true; spec: RunSpec; dirty: string[] } | { ok: false; error: string };

async function buildSpec(options: RunOptions): Promise<Built> {
  if (options.goal.trim() === '') return { ok: false, error: 'goal must not be empty' };
  const topology = options.topology ?? (options.workflow ? 'workflow' : 'solo');
  if ((topology === 'workflow') !== (options.workflow !== undefined))
    return { ok: false, error: 'a workflow program (workflow.file) goes with topology "workflow"' };
  if (topology === 'peers' && !options.verify)
    return { ok: false, error: 'topology "peers" needs verify (merges and the result are checked with it)' };
  let workflow: RunSpec['workflow'];
  if (options.workflow) {
    const read = await readProgramSource(resolve(options.workflow.file));
    if (!read.ok) return read;
    workflow = { file: read.source.file, js: read.source.js, args: options.workflow.args ?? {} };
  }
  const inspected = await inspectUserRepo(options.repo, options.base ?? 'HEAD');
  if (!inspected.ok) return inspected;
  const { repo } = inspected;
  const fields: SpecFields = {};
  for (const key of SPEC_FIELDS)
    if (options[key] !== undefined) Object.assign(fields, { [key]: options[key] });
  const spec: RunSpec = {
    runId: newRunId(),
    topology,
    ...(topology === 'peers' ? { agents: 1, idleMs: parseDurationMs(DEFAULT_CONFIG.idle) ?? undefined } : {}),
    repo: repo.topLevel,
    goal: options.goal,
    baseRef: repo.baseRef,
    baseCommit: repo.baseCommit,
    model: options.model,
    customModels: [],
    maxSteps: DEFAULT_CONFIG.maxSteps,
    profile: DEFAULT_CONFIG.profile,
    stream: DEFAULT_CONFIG.stream,
    modelTimeoutMs: DEFAULT_CONFIG.modelTimeoutMs,
    maxRetries: DEFAULT_CONFIG.maxRetries,
    bashTimeoutS: DEFAULT_CONFIG.bashTimeoutS,
    ...fields,
    deadlineAt: new Date(
      Date.now() + (options.deadlineMs ?? parseDurationMs(DEFAULT_CONFIG.deadline) ?? 0),
    ).toISOString(),
    ...(workflow ? { workflow } : {}),
  };
  // The stored spec's schema: a wrong or unknown field is refused here, with its name.
  const parsed = runSpecSchema.safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      error: `invalid run options at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'unknown'}`,
    };
  }
  return { ok: true, spec, dirty: repo.dirty };
}
