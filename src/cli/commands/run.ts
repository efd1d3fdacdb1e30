import { availableParallelism } from 'node:os';
import { isRunId } from '../../core/ids.js';
import { exitCodeFor } from '../../view/summary.js';
import { agentCliFlags } from '../agent-cli-flags.js';
import { numberFlag, parseFlags, UsageError } from '../args.js';
import {
  ATTEMPTS_HELP,
  ATTEMPTS_OPTIONS,
  attemptOfFlag,
  attemptsFlags,
  checkAttemptsTopology,
} from '../attempts-flags.js';
import { attemptRunArgs, runAttemptsCommand } from '../attempts-run.js';
import { loadConfig } from '../config.js';
import { FLEET_HELP, FLEET_OPTIONS, fleetFlags } from '../fleet-flags.js';
import { runInForeground } from '../live-run.js';
import { endpointLines } from '../model-catalog.js';
import { prepareRun, recordNewRun } from '../new-run.js';
import { peerSettingFlags } from '../peer-flags.js';
import {
  NOTIFY_FLAG_HELP,
  notifyExtraSecrets,
  notifySettingsOrThrow,
  startRunNotifier,
} from '../run-notify.js';
import { SANDBOX_OPTIONS, sandboxFlags } from '../sandbox-flags.js';
import { withStore } from '../store-access.js';
import {
  PUBLISH_FLAGS_HELP,
  PUBLISH_OPTIONS,
  preparePublishOrThrow,
  publishAfterRun,
  runPublishRequest,
} from './publish.js';

export const RUN_HELP = `colony run --goal TEXT [options]

Runs agents on a git repository: one agent (solo topology, the default), N identical peers that
claim, act, verify and merge without an orchestrator (--topology peers), or a lead that creates
subagents and assigns them tasks in parallel (--topology orchestrated). Each agent works in its
own worktree of a hub clone under the state folder; your working tree, index and current branch are
never touched. The result is fetched into your repository as the branch colony/<run-id>.

  --topology NAME      solo (default), peers, orchestrated (a lead with create_subagent/assign_task
                       and run_workflow), or planned (a lead whose only way to delegate is
                       run_workflow: it writes the plan as a workflow program; docs/workflows.md)
  --agents N           peers: how many peers (required with --topology peers)
  --concurrency K      most agents working at once (default 64)
  --repo PATH          the git repository (default: current folder)
  --goal TEXT          what the agent should do (required)
  --model ID           a known model id, or <protocol>:<model-name> (protocols openai-chat,
                       openai-responses, anthropic); see colony models
  --base-url URL       API base URL (e.g. a local OpenAI-compatible server)
  --base REF           start from this commit (default HEAD)
  --setup CMD          run in the new worktree before the agent starts (e.g. "npm ci")
  --verify CMD         run after the agent finishes; the run fails if it fails (peers: required;
                       the run succeeds when it passes on hub main at the end)
  --merge-verify CMD   peers: what the integration queue runs for each merge request (default: the
                       --verify command). Use a check that passes on partial progress, e.g. a build
                       or lint, when --verify only passes once every piece has landed
  --integrators K      peers: peer-1 … peer-K also review merge requests and approve (land) or
                       reject them; merges wait for an integrator (default 0: the queue lands them)
  --approve-merges     peers, orchestrated: every merge request that passes the merge check waits
                       for your approval: colony approve RUN MR, colony reject RUN MR --reason TEXT,
                       or the dashboard's Approve / Reject buttons (peers carry on meanwhile and are
                       told the decision; an orchestrated subagent waits for it)
  --workers            peers, orchestrated: run the peers (the subagents' tasks; the lead stays
                       here) on fleet workers (colony worker, on this or other machines) instead of
                       in this process; needs COLONY_DATABASE_URL (a Postgres every worker reaches).
                       This process keeps the hub and the merge queue and serves them to the
                       workers (see docs/fleet.md). Config: "workers": true
${FLEET_HELP}
  --agent-cli CLI      peers, orchestrated: an external agent CLI drives the peers' (orchestrated: the
                       subagents'; a config profile may name its own) loops instead of Colony's own:
                       claude-code, codex, or 'cmd:COMMAND' (any command; it gets COLONY_MCP_URL,
                       COLONY_AGENT_TOKEN, the model proxy as ANTHROPIC_/OPENAI_BASE_URL, COLONY_GOAL,
                       COLONY_SYSTEM_PROMPT). See docs/agent-cli.md
  --agent-cli-peers P  only these peers run a CLI (e.g. peer-2,peer-3); the others are built in. An
                       entry may name its own: peer-2=claude-code@MODEL,peer-3=codex@MODEL (a mixed
                       team; @MODEL: that peer's model id, its CLI's protocol) or peer-2=cmd:COMMAND
  --peer-models P=M    peers: these peers run on a model of their own, e.g.
                       peer-2=anthropic:claude-sonnet-4-5,peer-3=openai-chat:gpt-4o (the others on
                       --model; a CLI-driven peer's calls go to it too, unless its @MODEL differs:
                       refused)
  --peer-max-steps P=N peers: these peers get a step cap of their own, e.g. peer-1=20,peer-2=200
                       (the others --max-steps). Config: "peers" {"peer-2": {model?, maxSteps?}};
                       the flags win per peer and field
  --idle DURATION      peers: nudge a peer with no progress for this long (default 5m); after twice
                       as long its claims stop being renewed so another peer can take them over
  --no-auto-resume     if this run's process dies, no supervisor (colony serve, worker, supervise)
                       resumes it on its own; only colony resume does (docs/recovery.md)
  --claim-lease DURATION  how long a claim lasts without its holder's heartbeat (default 5m; renewed
                       at a fifth of it): a crashed agent's files go back to the team after this long
  --accept CMD         orchestrated: after the team finishes, run --verify and CMD on the result;
                       each failure goes back, as a new task, to the subagent that owns the files
  --accept-rounds N    orchestrated: fix rounds of the acceptance check at most (default 2)
  --max-starts-per-agent N  most starts of one named agent (default 1000; then thread_limit_error)
  --max-agents N       most agents in the run (default 4096)
  --max-open-workflows N  orchestrated/planned: most open workflow runs of the lead at once (default 10;
                       then workflow_limit_error)
  --deadline DURATION  end the run as deadline_exceeded after this long (default 24h), e.g. 6h
  --max-steps N        step cap (default 100)
  --budget-usd X       hard money limit (needs priced models, unless --budget-tokens is given too)
  --budget-tokens N    hard token limit
  --profile NAME       coder (default), explore or reviewer
  --stream             stream model responses
  --sandbox MODE       on (default): every command an agent starts, and setup, verify and merge checks,
                       runs in a bubblewrap sandbox that sees only its own checkout (fails without
                       bubblewrap); auto: on when available, else off; off: uncontained, as your user
                       (the summary warns); see docs/sandbox.md
  --allow-network      the sandbox shares your network (default: none; --setup has it on the base tree)
  --pass-env NAME      pass this environment variable into the sandbox (repeatable; nothing else of
                       your environment is passed: no API keys)
  --max-runs N         most runs at once on this server (store) (default 10, or COLONY_MAX_RUNS)
  --wait-for-slot      when that many runs are running, wait for one to finish (the default)
  --no-wait            fail at once instead of waiting for a run slot
${NOTIFY_FLAG_HELP}
  --config FILE        config file (default ./colony.json if present); it may define
                       "profiles" {name: {base, model?, maxSteps?, system?, cli?}}, "limits"
                       {concurrency, maxStartsPerAgent, maxAgents, maxOpenWorkflows}, "accept" and "acceptRounds".
                       A ./colony.json not named with --config is not trusted with commands,
                       containment or endpoints: setup, verify, accept, baseUrl, sandbox (other than
                       on), allowNetwork, passEnv, notify and models[].baseUrl/apiKeyEnv are
                       refused there.
                       No file may send a vendor's key (OPENAI_API_KEY, …) to another host; only
                       --base-url or OPENAI_BASE_URL / ANTHROPIC_BASE_URL choose such an endpoint
  --json               one JSON object per event, the run summary last (run.started names the
                       endpoints the run calls)
${ATTEMPTS_HELP}
  --push REMOTE        when the run has landed something, push colony/<run-id> to this remote of
                       your repository (or URL), as colony publish does (docs/forges.md), with:
${PUBLISH_FLAGS_HELP}

The result arrives as the branch colony/<run-id> in your repository when something landed (none
otherwise); the summary's numbers (CriticalSteps, parallelism, coordination share): colony show --help.`;

export const RUN_OPTIONS = {
  topology: { type: 'string' },
  agents: { type: 'string' },
  concurrency: { type: 'string' },
  repo: { type: 'string' },
  goal: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  base: { type: 'string' },
  setup: { type: 'string' },
  verify: { type: 'string' },
  'merge-verify': { type: 'string' },
  integrators: { type: 'string' },
  'approve-merges': { type: 'boolean' },
  idle: { type: 'string' },
  'claim-lease': { type: 'string' },
  'no-auto-resume': { type: 'boolean' },
  accept: { type: 'string' },
  'accept-rounds': { type: 'string' },
  'max-starts-per-agent': { type: 'string' },
  'max-agents': { type: 'string' },
  'max-open-workflows': { type: 'string' },
  deadline: { type: 'string' },
  'max-steps': { type: 'string' },
  'budget-usd': { type: 'string' },
  'budget-tokens': { type: 'string' },
  profile: { type: 'string' },
  stream: { type: 'boolean' },
  ...SANDBOX_OPTIONS,
  'max-runs': { type: 'string' },
  'wait-for-slot': { type: 'boolean' },
  'no-wait': { type: 'boolean' },
  ...FLEET_OPTIONS,
  'agent-cli': { type: 'string' },
  'agent-cli-peers': { type: 'string' },
  'peer-models': { type: 'string' },
  'peer-max-steps': { type: 'string' },
  config: { type: 'string' },
  notify: { type: 'string' },
  json: { type: 'boolean' },
  push: { type: 'string' },
  ...PUBLISH_OPTIONS,
  ...ATTEMPTS_OPTIONS,
  // Not in the help: `colony watch` chooses the id and records it first (docs/watch.md).
  'run-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, RUN_OPTIONS, 'run');
  if (values.help) {
    process.stdout.write(`${RUN_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`run: unexpected argument "${positionals[0]}" (did you mean --goal?)`);
  if (!values.goal) throw new UsageError('run: --goal is required (what should the agent do?)');
  const runId = values['run-id'];
  if (runId !== undefined && !isRunId(runId))
    throw new UsageError(`run: --run-id must look like r-<time36>-<6 hex digits>, got "${runId}"`);
  const topology = topologyFlags(values);
  const attempts = attemptsFlags(values, availableParallelism());
  const attempt = attemptOfFlag(values);
  // Per-server run slots: flags here, else COLONY_MAX_RUNS / COLONY_WAIT_FOR_SLOT (see run-slots.ts).
  if (values['no-wait'] && values['wait-for-slot'])
    throw new UsageError('run: --no-wait and --wait-for-slot contradict each other');
  const maxRuns = numberFlag(values['max-runs'], 'max-runs', 'int');
  const runSlots = {
    ...(maxRuns !== undefined ? { maxRuns } : {}),
    ...(values['no-wait'] ? { wait: false } : values['wait-for-slot'] ? { wait: true } : {}),
  };
  const team = teamFlags(values, topology.topology);
  const peers = peerSettingFlags(values);
  if (peers && topology.topology !== 'peers')
    throw new UsageError('run: --peer-models and --peer-max-steps need --topology peers');
  const loaded = loadConfig({
    flags: {
      model: values.model,
      baseUrl: values['base-url'],
      base: values.base,
      setup: values.setup,
      verify: values.verify,
      maxSteps: numberFlag(values['max-steps'], 'max-steps', 'int'),
      budgetUsd: numberFlag(values['budget-usd'], 'budget-usd'),
      budgetTokens: numberFlag(values['budget-tokens'], 'budget-tokens', 'int'),
      profile: values.profile,
      stream: values.stream,
      deadline: values.deadline,
      idle: values.idle,
      claimLease: values['claim-lease'],
      ...(values['no-auto-resume'] ? { autoResume: false } : {}),
      ...sandboxFlags('run', values),
      ...team,
      ...(peers ? { peers } : {}),
    },
    env: process.env,
    configFile: values.config,
    cwd: process.cwd(),
  });
  if (!loaded.ok) throw new UsageError(loaded.error);
  if (attempts) checkAttemptsTopology(topology.topology, (values.workers ?? loaded.config.workers) === true);
  const integrators = numberFlag(values.integrators, 'integrators', 'int');
  if (integrators !== undefined) {
    if (topology.topology !== 'peers') throw new UsageError('run: --integrators needs --topology peers');
    if (integrators < 0 || integrators > (topology.agents ?? 0))
      throw new UsageError(`run: --integrators must be between 0 and --agents (${topology.agents})`);
  }
  const approveMerges = values['approve-merges'] === true;
  if (approveMerges && topology.topology === 'solo')
    throw new UsageError(
      'run: --approve-merges needs --topology peers or orchestrated (a solo run has no merge queue)',
    );
  if (approveMerges && integrators)
    throw new UsageError('run: --approve-merges and --integrators are two ways to review merges; choose one');
  if (values.idle !== undefined && topology.topology !== 'peers')
    throw new UsageError('run: --idle needs --topology peers');
  const mergeVerify = values['merge-verify'];
  if (mergeVerify !== undefined) {
    if (topology.topology !== 'peers') throw new UsageError('run: --merge-verify needs --topology peers');
    if (mergeVerify.trim() === '') throw new UsageError('run: --merge-verify must not be empty');
  }
  const fleet = fleetFlags(
    { ...values, workers: values.workers ?? loaded.config.workers },
    topology.topology,
    process.env,
  );
  const agentCli = agentCliFlags(values, topology.topology, topology.agents, process.env);
  const publish = runPublishRequest(values);
  const notify = notifySettingsOrThrow(values.notify, loaded.config.notify, process.env, 'run');
  const prepared = await prepareRun(
    {
      ...(fleet ? { fleet } : {}),
      ...(agentCli ? { agentCli } : {}),
      repo: values.repo ?? process.cwd(),
      goal: values.goal,
      ...(runId !== undefined ? { runId } : {}),
      config: loaded.config,
      ...topology,
      ...(mergeVerify !== undefined ? { mergeVerify } : {}),
      ...(integrators ? { integrators } : {}),
      ...(approveMerges ? { approveMerges } : {}),
      ...(attempt ? { attempt } : {}),
    },
    process.env,
  );
  const sandbox = prepared.spec.sandbox;
  if (sandbox && !sandbox.enabled)
    process.stderr.write(
      `warning: no sandbox (${sandbox.offReason ?? 'off'}): agents' commands run uncontained, as your user\n`,
    );
  if (prepared.dirty.length > 0) {
    process.stderr.write(
      `warning: ${prepared.dirty.length} uncommitted change(s) in ${prepared.spec.repo} are NOT included; the run starts from ${prepared.spec.baseRef} (${prepared.spec.baseCommit.slice(0, 10)})\n`,
    );
  }
  // The remote, forge and token are checked before the run spends anything.
  const publishing = publish ? await preparePublishOrThrow(prepared.spec.repo, publish, 'run') : null;
  if (attempts)
    // The spec built here only checked the flags: each attempt builds (and records) its own.
    return withStore((store) =>
      runAttemptsCommand({
        store,
        spec: prepared.spec,
        settings: attempts,
        runArgs: attemptRunArgs(RUN_OPTIONS, values),
        json: values.json ?? false,
        publishing,
      }),
    );
  return withStore(async (store) => {
    await recordNewRun(store, prepared.spec, prepared.catalog);
    if (!values.json) {
      const [main = `model ${prepared.spec.model}`, ...others] = endpointLines(
        prepared.spec,
        prepared.catalog,
      );
      process.stdout.write(`run ${prepared.spec.runId} started (${main})\n`);
      for (const line of others) process.stdout.write(`  ${line}\n`);
    }
    // The notifier follows the run's log on its own; the run never waits for it (docs/notify.md).
    const notifier = startRunNotifier(store, prepared.spec, notify, values.json ?? false);
    try {
      const summary = await runInForeground({
        store,
        spec: prepared.spec,
        provider: prepared.provider,
        catalog: prepared.catalog,
        json: values.json ?? false,
        resumed: false,
        runSlots,
        extraSecrets: notifyExtraSecrets(notify),
      });
      if (publishing)
        return await publishAfterRun(
          store,
          summary,
          publishing,
          values.json ?? false,
          exitCodeFor(summary.status),
        );
      return exitCodeFor(summary.status);
    } finally {
      await notifier?.finish();
    }
  });
}

/** --sandbox, --allow-network, --pass-env as config flags (validated with the rest of the config). */

/** orchestrated: the acceptance check and scheduler limits from flags (validated here). */
function teamFlags(
  values: Record<string, string | string[] | boolean | undefined>,
  topology: TopologyFlags['topology'],
): {
  accept?: string;
  acceptRounds?: number;
  limits?: { maxStartsPerAgent?: number; maxAgents?: number; maxOpenWorkflows?: number };
} {
  const text = (name: string) => values[name] as string | undefined;
  const accept = text('accept');
  // 0 rounds is valid: check once, route nothing.
  const rounds = text('accept-rounds');
  const acceptRounds = rounds?.trim() === '0' ? 0 : numberFlag(rounds, 'accept-rounds', 'int');
  const maxStarts = numberFlag(text('max-starts-per-agent'), 'max-starts-per-agent', 'int');
  const maxAgents = numberFlag(text('max-agents'), 'max-agents', 'int');
  const maxOpen = numberFlag(text('max-open-workflows'), 'max-open-workflows', 'int');
  if ((accept !== undefined || acceptRounds !== undefined) && topology !== 'orchestrated')
    throw new UsageError('run: --accept and --accept-rounds need --topology orchestrated');
  if (accept !== undefined && accept.trim() === '') throw new UsageError('run: --accept must not be empty');
  if ((maxStarts !== undefined || maxAgents !== undefined) && topology !== 'orchestrated')
    throw new UsageError('run: --max-starts-per-agent and --max-agents need --topology orchestrated');
  if (maxOpen !== undefined && topology !== 'orchestrated')
    throw new UsageError('run: --max-open-workflows needs --topology orchestrated or planned');
  for (const [flag, value] of [
    ['max-starts-per-agent', maxStarts],
    ['max-agents', maxAgents],
    ['max-open-workflows', maxOpen],
  ] as const)
    if (value !== undefined && value < 1) throw new UsageError(`run: --${flag} must be at least 1`);
  const limits =
    maxStarts !== undefined || maxAgents !== undefined || maxOpen !== undefined
      ? {
          ...(maxStarts !== undefined ? { maxStartsPerAgent: maxStarts } : {}),
          ...(maxAgents !== undefined ? { maxAgents } : {}),
          ...(maxOpen !== undefined ? { maxOpenWorkflows: maxOpen } : {}),
        }
      : undefined;
  return {
    ...(accept !== undefined ? { accept } : {}),
    ...(acceptRounds !== undefined ? { acceptRounds } : {}),
    ...(limits ? { limits } : {}),
  };
}

interface TopologyFlags {
  topology: 'solo' | 'peers' | 'orchestrated';
  agents?: number;
  concurrency?: number;
  /** `--topology planned`: an orchestrated run whose lead delegates only by run_workflow. */
  leadDelegation?: 'programs';
}

function topologyFlags(values: { topology?: string; agents?: string; concurrency?: string }): TopologyFlags {
  const topology = values.topology ?? 'solo';
  if (topology !== 'solo' && topology !== 'peers' && topology !== 'orchestrated' && topology !== 'planned')
    throw new UsageError(`run: --topology must be solo, peers, orchestrated or planned, got "${topology}"`);
  const agents = numberFlag(values.agents, 'agents', 'int');
  const concurrency = numberFlag(values.concurrency, 'concurrency', 'int');
  if (topology === 'orchestrated' || topology === 'planned') {
    if (agents !== undefined)
      throw new UsageError(
        `run: --agents needs --topology peers (the lead ${topology === 'planned' ? 'writes a program' : 'creates subagents'})`,
      );
    return {
      topology: 'orchestrated',
      concurrency,
      ...(topology === 'planned' ? { leadDelegation: 'programs' as const } : {}),
    };
  }
  if (topology === 'solo') {
    if (agents !== undefined || concurrency !== undefined)
      throw new UsageError(
        'run: --agents and --concurrency need --topology peers (--concurrency also orchestrated)',
      );
    return { topology };
  }
  if (agents === undefined) throw new UsageError('run: --topology peers needs --agents N');
  return { topology, agents, concurrency };
}
