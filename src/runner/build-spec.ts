/**
 * The one way a new run's spec is made: a starter's options in (the library's `runTopology`, or the
 * `colony` command after it has turned flags and config into options), a checked spec out with the
 * run's model catalog and provider — or why not, as data. Every check that can fail before anything
 * is recorded is made here, once: the goal, the topology and its workflow program, peers' verify,
 * passEnv names, the repository and base ref, the sandbox, the stored spec's schema, the run's,
 * each profile's and each peer's own model (and the peers named), and a money budget over an
 * unpriced model.
 */
import { resolve } from 'node:path';
import { parseDurationMs } from '../core/duration.js';
import { newRunId } from '../core/ids.js';
import type { ModelCatalog } from '../model/catalog.js';
import type { Provider } from '../model/types.js';
import { runCatalog } from '../run/run-catalog.js';
import type { RunSpec, TopologyName } from '../run/run-spec.js';
import { runSpecSchema } from '../run/run-spec-schema.js';
import { isEnvName, resolveSandboxSetting, type SandboxMode } from '../sandbox/index.js';
import { readProgramSource } from '../workflow/load.js';
import { inspectUserRepo } from '../workspace/git/repo.js';
import { RUN_DEFAULTS } from './defaults.js';
import { peerSettingsProblem } from './peer-settings-check.js';
import { describeProblem, type SpecProblem } from './spec-problem.js';

/** The RunSpec fields a starter may set as they are (each optional; see RunSpec for their meaning). */
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
  'autoResume',
  'integrators',
  'approveMerges',
  'attempt',
  'fleet',
  'agentCli',
  'maxSteps',
  'peerSettings',
  'leadMaxSteps',
  'subagentMaxSteps',
  'leadDelegation',
  'maxStartsPerAgent',
  'maxAgents',
  'maxOpenWorkflows',
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

export type SpecFields = Partial<Pick<RunSpec, (typeof SPEC_FIELDS)[number]>>;

export interface SpecOptions extends SpecFields {
  /** The git repository (any folder inside it). The result is fetched into it as colony/<run-id>. */
  repo: string;
  goal: string;
  /**
   * The run's id, chosen by the caller (`colony watch` records it before the run starts, so a second
   * start of the same run fails on the runs table's key); default a new one (core/ids.ts).
   */
  runId?: string;
  /** A known model id or `<protocol>:<model-name>` (see `colony models`); `scripted` needs `scenario`. */
  model: string;
  /** Default `solo`; `workflow` when `workflow` is given. peers needs `verify`. */
  topology?: TopologyName;
  /** A workflow program (.ts needs the typescript package, or .js/.mjs) and its arguments. */
  workflow?: { file: string; args?: Record<string, string> };
  /** Start from this commit (default HEAD). */
  base?: string;
  /** End the run as deadline_exceeded after this long (default 24 h). */
  deadlineMs?: number;
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

/** A new run, checked and ready to record. */
export interface BuiltRun {
  spec: RunSpec;
  /** The run's own model's provider. */
  provider: Provider;
  /** Every model the run may call (profiles may name their own). */
  catalog: ModelCatalog;
  /** Uncommitted changes in the repository that the run does not see (it starts from its base). */
  dirty: string[];
}

export type SpecResult =
  | ({ ok: true } & BuiltRun)
  /** `error` words the problem in the library's terms; front doors with other words use `problem`. */
  | { ok: false; error: string; problem: SpecProblem };

/** Builds and checks a new run's spec; nothing is written anywhere. `env`: keys, base URLs, the sandbox's host. */
export async function buildRunSpec(options: SpecOptions, env: NodeJS.ProcessEnv): Promise<SpecResult> {
  const refuse = (problem: SpecProblem): SpecResult => ({
    ok: false,
    error: describeProblem(problem),
    problem,
  });
  if (options.goal.trim() === '') return refuse({ kind: 'empty-goal' });
  const topology = options.topology ?? (options.workflow ? 'workflow' : 'solo');
  if ((topology === 'workflow') !== (options.workflow !== undefined))
    return refuse({ kind: 'workflow-pairing' });
  if (topology === 'peers' && !options.verify) return refuse({ kind: 'peers-without-verify' });
  const passEnv = options.passEnv ?? [];
  const badName = passEnv.find((name) => !isEnvName(name));
  if (badName !== undefined) return refuse({ kind: 'env-name', name: badName });

  let workflow: RunSpec['workflow'];
  if (options.workflow) {
    const read = await readProgramSource(resolve(options.workflow.file));
    if (!read.ok) return refuse({ kind: 'workflow-program', detail: read.error });
    workflow = { file: read.source.file, js: read.source.js, args: options.workflow.args ?? {} };
  }
  const inspected = await inspectUserRepo(options.repo, options.base ?? 'HEAD');
  if (!inspected.ok) return refuse({ kind: 'repo', detail: inspected.error });
  const { repo } = inspected;
  // One clear error when the sandbox is wanted and cannot be had (never a silent fallback).
  const sandbox = await resolveSandboxSetting(
    {
      mode: options.sandbox ?? RUN_DEFAULTS.sandbox,
      network: options.allowNetwork ?? RUN_DEFAULTS.allowNetwork,
      passEnv,
    },
    env,
  );
  if (!sandbox.ok) return refuse({ kind: 'sandbox', detail: sandbox.error });

  const spec: RunSpec = {
    runId: options.runId ?? newRunId(),
    topology,
    ...(topology === 'peers' ? { agents: 1, idleMs: parseDurationMs(RUN_DEFAULTS.idle) ?? undefined } : {}),
    repo: repo.topLevel,
    goal: options.goal,
    baseRef: repo.baseRef,
    baseCommit: repo.baseCommit,
    model: options.model,
    customModels: [],
    maxSteps: RUN_DEFAULTS.maxSteps,
    profile: RUN_DEFAULTS.profile,
    stream: RUN_DEFAULTS.stream,
    modelTimeoutMs: RUN_DEFAULTS.modelTimeoutMs,
    maxRetries: RUN_DEFAULTS.maxRetries,
    bashTimeoutS: RUN_DEFAULTS.bashTimeoutS,
    ...givenFields(options),
    deadlineAt: new Date(
      Date.now() + (options.deadlineMs ?? parseDurationMs(RUN_DEFAULTS.deadline) ?? 0),
    ).toISOString(),
    ...(workflow ? { workflow } : {}),
    sandbox: sandbox.value,
  };
  // The stored spec's schema: a wrong or unknown field is refused here, with its name.
  const parsed = runSpecSchema.safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refuse({
      kind: 'invalid-spec',
      path: issue?.path.join('.') || '(root)',
      detail: issue?.message ?? 'unknown',
    });
  }

  const catalog = runCatalog(spec, env);
  const provider = catalog.provider();
  if (!provider.ok) return refuse({ kind: 'model', detail: provider.error });
  for (const [name, profile] of Object.entries(spec.profiles ?? {})) {
    if (!profile.model) continue;
    const own = catalog.provider(profile.model);
    if (!own.ok) return refuse({ kind: 'profile-model', profile: name, detail: own.error });
  }
  const peerProblem = peerSettingsProblem(spec, catalog);
  if (peerProblem) return refuse(peerProblem);
  const unpriced = unpricedUnderMoneyBudget(spec, catalog);
  if (unpriced && spec.budgetUsd !== undefined)
    return refuse({ kind: 'unpriced', budgetUsd: spec.budgetUsd, what: unpriced });
  return { ok: true, spec, provider: provider.provider, catalog, dirty: repo.dirty };
}

/** The spec fields the starter set (an `undefined` one is left to the default). */
function givenFields(options: SpecOptions): SpecFields {
  const fields: SpecFields = {};
  for (const key of SPEC_FIELDS)
    if (options[key] !== undefined) Object.assign(fields, { [key]: options[key] });
  return fields;
}

/**
 * A money budget cannot stop a model without prices (its calls cost nothing to the budget): refused
 * unless a token budget binds too. Covers the run's model and every profile's and peer's own model.
 * Returns the unpriced model's description, or null.
 */
function unpricedUnderMoneyBudget(spec: RunSpec, catalog: ModelCatalog): string | null {
  if (spec.budgetUsd === undefined || spec.budgetTokens !== undefined) return null;
  const uses: Array<[string, string]> = [[spec.model, `model '${spec.model}'`]];
  for (const [name, profile] of Object.entries(spec.profiles ?? {}))
    if (profile.model) uses.push([profile.model, `profile "${name}"'s model '${profile.model}'`]);
  for (const [peer, setting] of Object.entries(spec.peerSettings ?? {}))
    if (setting.model) uses.push([setting.model, `${peer}'s model '${setting.model}'`]);
  for (const [id, what] of uses) {
    const record = catalog.record(id);
    if (record.ok && record.model.prices === null) return what;
  }
  return null;
}
