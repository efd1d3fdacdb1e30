/**
 * `colony run` (and `workflow`, the demos) as a client of the run builder: flags and config become
 * the builder's options (runner/build-spec.ts), and a refusal becomes a usage error (exit 2) in the
 * CLI's words. Then the runs row and `run.started`.
 */

import { parseDurationMs } from '../core/duration.js';
import { parseAgentCliFlag } from '../external-agent/index.js';
import type { ModelCatalog } from '../model/catalog.js';
import { recordRun } from '../run/record-run.js';
import { runEndpoints } from '../run/run-catalog.js';
import type { AgentCliChoice, RunSpec } from '../run/run-spec.js';
import {
  type BuiltRun,
  buildRunSpec,
  peerRange,
  type SpecFields,
  type SpecOptions,
  type SpecProblem,
} from '../runner/index.js';
import type { Store } from '../store/index.js';
import { UsageError } from './args.js';
import type { ColonyConfig } from './config.js';
import { CliFailure } from './store-access.js';

export interface NewRunInput {
  repo: string;
  goal: string;
  /** The run's id when the caller chose it (`colony run --run-id`, used by `colony watch`). */
  runId?: string;
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
  /** orchestrated: how the lead delegates (`programs`: run_workflow only, `--topology planned`). */
  leadDelegation?: RunSpec['leadDelegation'];
  /** peers, orchestrated, workflow: every verified merge waits for a person's approval. */
  approveMerges?: boolean;
  /** One of N attempts (`colony run --attempts N`; the coordinator passes it on). */
  attempt?: RunSpec['attempt'];
  /** peers, orchestrated: run the agents (subagents' tasks) on fleet workers. */
  fleet?: RunSpec['fleet'];
  /** peers: an external agent CLI drives the peers' loops. */
  agentCli?: RunSpec['agentCli'];
  /** workflow: the program and its `--arg`s. */
  workflow?: { file: string; args: Record<string, string> };
}

export type PreparedRun = BuiltRun;

/** Validates everything that can be checked before touching the database (exit code 2 on failure). */
export async function prepareRun(input: NewRunInput, env: NodeJS.ProcessEnv): Promise<PreparedRun> {
  const built = await buildRunSpec(specOptions(input), env);
  if (!built.ok) throw new UsageError(usageText(built.problem));
  const { spec, provider, catalog, dirty } = built;
  return { spec, provider, catalog, dirty };
}

/** Flags (merged into the config) as the builder's options. */
function specOptions(input: NewRunInput): SpecOptions {
  const { config } = input;
  const topology = input.topology ?? 'solo';
  return {
    repo: input.repo,
    goal: input.goal,
    ...(input.runId !== undefined ? { runId: input.runId } : {}),
    model: config.model,
    topology,
    ...(input.workflow ? { workflow: input.workflow } : {}),
    base: config.base,
    deadlineMs: parseDurationMs(config.deadline) ?? undefined,
    sandbox: config.sandbox,
    allowNetwork: config.allowNetwork,
    passEnv: config.passEnv,
    baseUrl: config.baseUrl,
    customModels: config.models,
    scenario: input.scenario,
    setup: config.setup,
    verify: config.verify,
    mergeVerify: input.mergeVerify,
    ...(input.approveMerges ? { approveMerges: true } : {}),
    ...(input.attempt ? { attempt: input.attempt } : {}),
    maxSteps: config.maxSteps,
    budgetUsd: config.budgetUsd,
    budgetTokens: config.budgetTokens,
    profile: config.profile,
    stream: config.stream,
    modelTimeoutMs: config.modelTimeoutMs,
    maxRetries: config.maxRetries,
    bashTimeoutS: config.bashTimeoutS,
    // Claims exist in every topology (peers, subagents, workflow agents, CLI agents over MCP).
    ...(config.autoResume === false ? { autoResume: false } : {}),
    ...(config.claimLease ? { claimLeaseMs: parseDurationMs(config.claimLease) ?? undefined } : {}),
    ...(topology === 'peers'
      ? {
          agents: input.agents ?? 1,
          concurrency: input.concurrency,
          idleMs: parseDurationMs(config.idle) ?? undefined,
          ...(input.integrators ? { integrators: input.integrators } : {}),
          ...(config.peers ? { peerSettings: config.peers } : {}),
        }
      : {}),
    ...(topology === 'orchestrated' ? orchestratedFields(input) : {}),
    ...(topology === 'workflow' ? { concurrency: input.concurrency } : {}),
    fleet: input.fleet,
    agentCli: input.agentCli,
  };
}

/** A refusal of the run builder in the CLI's words (its flags). */
function usageText(problem: SpecProblem): string {
  switch (problem.kind) {
    case 'empty-goal':
      return 'run: --goal must not be empty';
    case 'workflow-pairing':
      return 'run: a workflow program goes with the workflow topology (colony workflow FILE)';
    case 'peers-without-verify':
      return 'run: --topology peers needs --verify CMD (merges and the result are checked with it)';
    case 'env-name':
      return `run: --pass-env needs variable names, got "${problem.name}"`;
    case 'workflow-program':
      return `workflow: ${problem.detail}`;
    case 'sandbox':
      return `run: ${problem.detail}`;
    case 'invalid-spec':
      return `run: invalid run settings at ${problem.path}: ${problem.detail}`;
    case 'profile-model':
      return `profile "${problem.profile}": ${problem.detail}`;
    case 'peer-settings-topology':
      return 'run: --peer-models and --peer-max-steps (config "peers") need --topology peers';
    case 'unknown-peer':
      return `run: --peer-models, --peer-max-steps or config "peers": ${problem.peer} is not a peer of this run (${peerRange(problem.agents)})`;
    case 'peer-model':
      return `run: --peer-models ${problem.peer}: ${problem.detail}`;
    case 'peer-two-models':
      return `run: ${problem.peer} has two models: '${problem.models[0]}' from --agent-cli-peers and '${problem.models[1]}' from --peer-models (give one)`;
    case 'unpriced':
      return (
        `run: --budget-usd ${problem.budgetUsd} cannot limit ${problem.what}: it has no prices, so its calls ` +
        'would cost nothing against the budget. Add --budget-tokens N (the token budget then binds), use a ' +
        'model with prices (colony models), or give the model prices in a config file\'s "models" entry'
      );
    case 'repo':
    case 'model':
      return problem.detail;
  }
}

/** orchestrated: limits, profiles and the acceptance check from config (flags already merged in). */
function orchestratedFields(input: NewRunInput): SpecFields {
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
        ...(p.coordination ? { coordination: p.coordination } : {}),
      },
    ]),
  );
  return {
    concurrency: input.concurrency ?? limits.concurrency,
    maxStartsPerAgent: limits.maxStartsPerAgent,
    maxAgents: limits.maxAgents,
    maxOpenWorkflows: limits.maxOpenWorkflows,
    ...(input.leadDelegation ? { leadDelegation: input.leadDelegation } : {}),
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
