/** Turning validated options into a new run: spec, provider, the runs row and `run.started`. */

import { parseAgentCliFlag } from '../agent-cli/index.js';
import { parseDurationMs } from '../core/duration.js';
import { newRunId } from '../core/ids.js';
import type { ModelCatalog } from '../model/catalog.js';
import type { Provider } from '../model/types.js';
import { recordRun } from '../run/record-run.js';
import type { AgentCliChoice, RunSpec } from '../run/run-spec.js';
import { resolveSandboxSetting } from '../sandbox/index.js';
import type { Store } from '../store/index.js';
import { inspectUserRepo } from '../workspace/repo.js';
import { UsageError } from './args.js';
import type { ColonyConfig } from './config.js';
import { runCatalog, runEndpoints, unpricedUnderMoneyBudget } from './model-catalog.js';
import { CliFailure } from './store-access.js';

export interface NewRunInput {
  repo: string;
  goal: string;
  config: ColonyConfig;
  scenario?: string;
  /** Default solo; peers needs `agents`. */
  topology?: RunSpec['topology'];
  agents?: number;
  concurrency?: number;
  /** peers: the integration queue's per-merge check (default: config.verify). */
  mergeVerify?: string;
  /** peers: how many peers also act as integrators. */
  integrators?: number;
  /** peers, orchestrated, workflow: every verified merge waits for a person's approval. */
  approveMerges?: boolean;
  /** peers, orchestrated: run the agents (subagents' tasks) on fleet workers. */
  fleet?: RunSpec['fleet'];
  /** peers: an external agent CLI drives the peers' loops. */
  agentCli?: RunSpec['agentCli'];
}

export interface PreparedRun {
  spec: RunSpec;
  provider: Provider;
  /** Every model the run may call (profiles may name their own). */
  catalog: ModelCatalog;
  dirty: string[];
}

/** Validates everything that can be checked before touching the database (exit code 2 on failure). */
export async function prepareRun(input: NewRunInput, env: NodeJS.ProcessEnv): Promise<PreparedRun> {
  if (input.goal.trim() === '') throw new UsageError('run: --goal must not be empty');
  const inspected = await inspectUserRepo(input.repo, input.config.base ?? 'HEAD');
  if (!inspected.ok) throw new UsageError(inspected.error);
  const repo = inspected.repo;
  const { config } = input;
  // One clear error when the sandbox is wanted and cannot be had (never a silent fallback).
  const sandbox = await resolveSandboxSetting(
    { mode: config.sandbox, network: config.allowNetwork, passEnv: config.passEnv },
    env,
  );
  if (!sandbox.ok) throw new UsageError(`run: ${sandbox.error}`);
  const spec: RunSpec = {
    runId: newRunId(),
    topology: input.topology ?? 'solo',
    ...(input.topology === 'peers'
      ? {
          agents: input.agents ?? 1,
          concurrency: input.concurrency,
          idleMs: parseDurationMs(config.idle) ?? undefined,
          ...(input.integrators ? { integrators: input.integrators } : {}),
        }
      : {}),
    ...(input.topology === 'orchestrated' ? orchestratedFields(input) : {}),
    ...(input.fleet ? { fleet: input.fleet } : {}),
    ...(input.agentCli ? { agentCli: input.agentCli } : {}),
    deadlineAt: new Date(Date.now() + (parseDurationMs(config.deadline) ?? 0)).toISOString(),
    repo: repo.topLevel,
    goal: input.goal,
    baseRef: repo.baseRef,
    baseCommit: repo.baseCommit,
    model: config.model,
    baseUrl: config.baseUrl,
    customModels: config.models,
    scenario: input.scenario,
    setup: config.setup,
    verify: config.verify,
    ...(input.mergeVerify !== undefined ? { mergeVerify: input.mergeVerify } : {}),
    ...(input.approveMerges ? { approveMerges: true } : {}),
    maxSteps: config.maxSteps,
    budgetUsd: config.budgetUsd,
    budgetTokens: config.budgetTokens,
    profile: config.profile,
    stream: config.stream,
    modelTimeoutMs: config.modelTimeoutMs,
    maxRetries: config.maxRetries,
    bashTimeoutS: config.bashTimeoutS,
    sandbox: sandbox.value,
  };
  const catalog = runCatalog(spec, env);
  const provider = catalog.provider();
  if (!provider.ok) throw new UsageError(provider.error);
  for (const [name, profile] of Object.entries(spec.profiles ?? {})) {
    if (!profile.model) continue;
    const own = catalog.provider(profile.model);
    if (!own.ok) throw new UsageError(`profile "${name}": ${own.error}`);
  }
  const unpriced = unpricedUnderMoneyBudget(spec, catalog);
  if (unpriced)
    throw new UsageError(
      `run: --budget-usd ${spec.budgetUsd} cannot limit ${unpriced}: it has no prices, so its calls would ` +
        'cost nothing against the budget. Add --budget-tokens N (the token budget then binds), use a model ' +
        'with prices (colony models), or give the model prices in a config file\'s "models" entry',
    );
  return { spec, provider: provider.provider, catalog, dirty: repo.dirty };
}

/** orchestrated: limits, profiles and the acceptance check from config (flags already merged in). */
function orchestratedFields(input: NewRunInput): Partial<RunSpec> {
  const { config } = input;
  const limits = config.limits ?? {};
  const profiles = Object.fromEntries(
    Object.entries(config.profiles ?? {}).map(([name, p]) => [
      name,
      {
        base: p.base,
        model: p.model,
        maxSteps: p.maxSteps,
        prompt: p.system,
        ...(p.cli ? { cli: profileCli(name, p.cli) } : {}),
      },
    ]),
  );
  return {
    concurrency: input.concurrency ?? limits.concurrency,
    maxStartsPerAgent: limits.maxStartsPerAgent,
    maxAgents: limits.maxAgents,
    ...(Object.keys(profiles).length > 0 ? { profiles } : {}),
    ...(config.accept ? { accept: config.accept, acceptRounds: config.acceptRounds } : {}),
  };
}

/** A profile's `cli` (claude-code, codex, cmd:…) as the run spec holds it, or a usage error. */
function profileCli(name: string, value: string): AgentCliChoice {
  const parsed = parseAgentCliFlag(value);
  if (!parsed.ok) throw new UsageError(`profile "${name}": ${parsed.error.replace('--agent-cli', 'cli')}`);
  return parsed.value;
}

/** Records the run; `catalog` puts where its models are called into run.started (`--json` shows it). */
export async function recordNewRun(store: Store, spec: RunSpec, catalog?: ModelCatalog): Promise<void> {
  const recorded = await recordRun(store, spec, catalog ? runEndpoints(spec, catalog) : undefined);
  if (!recorded.ok) throw new CliFailure(recorded.error);
}
