/**
 * One run as a fleet worker hosts it: the run's spec (from its log), its hub mirror on this worker,
 * the tokens of the agents it runs, and what runs their sessions — for peers a PeerHost (the same one
 * the owner uses for in-process peers), for an orchestrated run's subagents their tasks
 * (subagent-host.ts, the same task code as in-process) — with merge tools that reach the owner's
 * queue over HTTP. Opened on the run's first session here and closed when its last one ends.
 */
import { join } from 'node:path';
import { issueAgentToken } from '../auth/index.js';
import { AgentCoordination, type Coordination } from '../coord/index.js';
import { CliHost } from '../external-agent/index.js';
import { type FleetRun, loadFleetRun } from '../fleet/fleet-db.js';
import { type SessionInput, TOKEN_TTL_MS } from '../fleet/names.js';
import { plainHttpProblem } from '../fleet/tls.js';
import { err, ok, type Result } from '../lang/result.js';
import type { AgentEnd } from '../run/agent-end.js';
import type { Store } from '../store/index.js';
import { withAfterMutation } from '../tool/after-mutation.js';
import { loadRunSpec } from '../topology/execute-run.js';
import { LEAD_AGENT } from '../topology/orchestrated/prompt.js';
import {
  runHasSubagentClis,
  type SubagentCli,
  subagentCliChoice,
} from '../topology/orchestrated/subagent-cli.js';
import { PeerHost } from '../topology/peers/peer-host.js';
import { peerNames } from '../topology/peers.js';
import { openRunServices } from '../topology/session/run-services.js';
import { agentCliAccess } from '../topology/team/cli-access.js';
import type { Emit } from '../topology/team/team-run.js';
import { replayedBudget } from '../topology/team/team-run.js';
import { RunWorkspace } from '../workspace/run-workspace.js';
import { integrationClient } from './integration-client.js';
import { subagentHost } from './subagent-host.js';
import { openMirror, workerHubUpstream } from './worker-hub.js';

export interface WorkerRunOptions {
  store: Store;
  /** The worker's coordination (one LISTEN connection per process); the run's claims use its lease. */
  coord: Coordination;
  runId: string;
  /** The worker's own folder (mirrors and agents' repositories live below it). */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** How this worker reaches owners: its CA bundle, and whether plain HTTP off loopback is allowed. */
  transport: WorkerTransport;
}

export interface WorkerTransport {
  /** `colony worker --ca FILE`: the absolute path (for git) and its PEM text (for Node). */
  ca?: { file: string; pem: Buffer };
  insecureHttp: boolean;
}

/** Why this worker will not send its agents' tokens to `hubUrl`, or null. */
function transportProblem(hubUrl: string, transport: WorkerTransport): string | null {
  return plainHttpProblem(hubUrl, transport.insecureHttp, 'colony worker');
}

export interface WorkerRun {
  runId: string;
  /**
   * Runs one session of this run (a peer, or a subagent's task) until it ends or `signal` aborts.
   * `fresh`: the agent never ran anywhere (no history to read or wait for).
   */
  runSession(input: SessionInput, signal: AbortSignal, options: { fresh: boolean }): Promise<AgentEnd>;
  fleet: FleetRun;
  workspace: RunWorkspace;
  emit: Emit;
  /** The run's fleet row as the database has it now (a resumed owner's address and secret). */
  refresh(row: FleetRun): void;
  stopped: AbortSignal;
  setEpoch(agent: string, epoch: number): void;
  pushWip(agent: string): Promise<Result<void>>;
  close(): void;
}

export async function openWorkerRun(options: WorkerRunOptions): Promise<Result<WorkerRun>> {
  const { store, runId, env } = options;
  const loadedFleet = await loadFleetRun(store.pool, runId);
  if (!loadedFleet) return err(`run ${runId} is not a fleet run (no hub address was published for it)`);
  const refused = transportProblem(loadedFleet.hubUrl, options.transport);
  if (refused) return err(`run ${runId} cannot run on this worker: ${refused}`);
  const loaded = await loadRunSpec(store.log, runId);
  if (!loaded) return err(`run ${runId} has no run.started event`);
  if (!loaded.ok) return err(`run ${runId}: ${loaded.error}`);
  const spec = loaded.spec;
  if (spec.topology !== 'peers' && spec.topology !== 'orchestrated')
    return err(`run ${runId} is a ${spec.topology} run: fleet workers run peers and subagents only`);
  // Claims and the task board on the run's own lease and heartbeat (spec.claimLeaseMs), as the owner's.
  const coord = options.coord.forRun(spec.claimLeaseMs);
  const services = await openRunServices({ spec, store, log: store.log, coord, env });
  if (!services.ok) return err(`run ${runId} cannot run on this worker: ${services.error}`);
  const { scrubber, log, emit, gate, provider, commandEnv, injectorFor } = services.value;
  const providerFor = services.value.providerForModel;
  const { sandbox } = services.value;

  const runDir = join(options.dir, 'runs', runId);
  const mirrorPath = join(runDir, 'hub.git');
  const mirror = await openMirror(mirrorPath);
  if (!mirror.ok) return mirror;
  const epochs = new Map<string, number>();
  // A resumed owner serves at a new address with a new secret (the worker's tick brings both here).
  let fleet: FleetRun = loadedFleet;
  // Counts the owners this worker has seen (a resumed owner signs with a new secret).
  let ownerGeneration = 0;
  const tokens = new Map<string, { token: string; epoch: number; expiresAt: number; secret: Buffer }>();
  const tokenFor = (agent: string): string => {
    // Read-only subagents share a checkout named after the lead (who has no session on a worker); it
    // only ever fetches main, which every agent's token may read: any session's token will do.
    const holder = agent === LEAD_AGENT && !epochs.has(agent) ? epochs.keys().next().value : agent;
    const epoch = holder === undefined ? undefined : epochs.get(holder);
    if (holder === undefined || epoch === undefined)
      throw new Error(`${agent} has no session on this worker`);
    agent = holder;
    const held = tokens.get(agent);
    const now = Date.now();
    const secret = fleet.tokenSecret;
    if (held && held.epoch === epoch && held.secret.equals(secret) && held.expiresAt - now > TOKEN_TTL_MS / 3)
      return held.token;
    const expiresAt = now + TOKEN_TTL_MS;
    const token = issueAgentToken(secret, { runId, agent, expiresAt, epoch });
    tokens.set(agent, { token, epoch, expiresAt, secret });
    return token;
  };
  const upstream = workerHubUpstream({
    mirrorPath,
    hubUrl: () => `${fleet.hubUrl}/git/${runId}/hub.git`,
    tokenFor,
    ...(options.transport.ca ? { caFile: options.transport.ca.file } : {}),
  });
  const workspace = new RunWorkspace({
    runId,
    runDir,
    userRepo: spec.repo,
    baseCommit: spec.baseCommit,
    log,
    setup: spec.setup,
    env: commandEnv,
    sandbox,
    upstream,
  });
  coord.claims.providePaths(runId, () => workspace.basePaths());
  const stopper = new AbortController();
  // Merge tools wait for outcomes over HTTP; each call names its agent through the token.
  const ports = new Map<string, ReturnType<typeof integrationClient>>();
  const portFor = (agent: string) => {
    let port = ports.get(agent);
    if (!port) {
      port = integrationClient({
        baseUrl: () => fleet.hubUrl,
        owner: () => ownerGeneration,
        runId,
        token: () => tokenFor(agent),
        signal: stopper.signal,
        ...(options.transport.ca ? { ca: options.transport.ca.pem } : {}),
      });
      ports.set(agent, port);
    }
    return port;
  };
  // A fleet worker pushes a writer's work in progress after each call that changed its checkout,
  // before the result is logged: a logged edit is never lost with its worker.
  const afterMutation = async (agent: string) => {
    const pushed = await upstream.pushWip(agent, workspace.repoOf(agent));
    if (!pushed.ok) await emit('warning', { message: `${agent}: ${pushed.error}` }, agent);
  };
  const budget = await replayedBudget({ spec, log });
  const modelUpstream = services.value.upstream;
  const peers =
    spec.topology === 'peers'
      ? new PeerHost({
          spec,
          log,
          emit,
          scrubber,
          provider,
          providerForModel: providerFor,
          commandEnv,
          sandbox,
          coord,
          budget,
          signal: stopper.signal,
          injectorFor,
          workspace,
          integrationFor: portFor,
          // Integrators run with the owner (their review tools act on its queue); peers here are
          // told who they are all the same (the shared prompt names them).
          integrators: peerNames(Math.min(spec.integrators ?? 0, spec.agents ?? 1)),
          afterMutation,
          // Peers driven by an external CLI: its MCP server and model proxy are this worker's.
          ...(spec.agentCli
            ? { agentCli: agentCliAccess({ spec, gate, upstream: modelUpstream, runFolder: runDir }) }
            : {}),
        })
      : null;
  // Subagents driven by an external CLI, as the owner drives them in-process: the CLI runs here, with
  // this worker's MCP server and model proxy (its rate gate, its keys), each subagent on its model.
  let modelOfSubagent: (agent: string) => string | undefined = () => undefined;
  const cli: SubagentCli | null =
    spec.topology === 'orchestrated' && runHasSubagentClis(spec)
      ? {
          choiceFor: (subagent) => subagentCliChoice(spec, subagent),
          host: new CliHost(
            agentCliAccess({
              spec,
              gate,
              upstream: modelUpstream,
              runFolder: runDir,
              modelOf: (agent) => modelOfSubagent(agent) ?? spec.model,
            }),
            { runId, deadlineAt: spec.deadlineAt, log, budget, scrubber },
          ),
          sandbox,
          baseEnv: commandEnv,
        }
      : null;
  // A subagent on a worker gets the team's shared context and claims as in the owner's process.
  const coordination = spec.topology === 'orchestrated' ? new AgentCoordination(coord, runId) : null;
  const subagents = subagentHost({
    spec,
    log,
    task: {
      runId,
      log,
      scrubber,
      budget,
      signal: stopper.signal,
      stream: spec.stream,
      providerFor,
      injectorFor,
      ...(cli ? { cli } : {}),
      ...(coordination ? { coordination } : {}),
    },
    tools: {
      runId,
      log,
      bash: { baseEnv: commandEnv, defaultTimeoutS: spec.bashTimeoutS, sandbox },
      hubPath: workspace.hubPath,
      forAgent: (agent) => workspace.forAgent(agent),
      queueFor: portFor,
      wrapTools: (agent, tools) => withAfterMutation(tools, () => afterMutation(agent)),
    },
  });
  modelOfSubagent = (agent) => subagents.modelOf(agent);
  return ok({
    runId,
    async runSession(input, signal, options) {
      if (input.task === undefined) {
        if (!peers)
          return {
            agent: input.agent,
            started: false,
            error: `run ${runId} has no peers (a session without a task)`,
          };
        const end = await peers.runPeer(input.agent, signal);
        return end.started ? { ...end, steps: end.outcome.steps } : end;
      }
      return subagents.runTask(input.agent, input.task, signal, options);
    },
    get fleet() {
      return fleet;
    },
    refresh(row) {
      // A resumed owner at an address this worker may not send tokens to: its sessions stop here.
      const moved = transportProblem(row.hubUrl, options.transport);
      if (moved) {
        if (!stopper.signal.aborted) stopper.abort({ status: 'stopped', reason: moved });
        return;
      }
      if (!row.tokenSecret.equals(fleet.tokenSecret)) ownerGeneration += 1;
      fleet = row;
      // The run's end as the owner decided it: a met goal ends the agents done (loop.ts abortedOutcome).
      if (row.stopReason && !stopper.signal.aborted)
        stopper.abort({ status: row.stopStatus ?? 'stopped', reason: row.stopReason });
    },
    workspace,
    emit,
    stopped: stopper.signal,
    setEpoch: (agent, epoch) => epochs.set(agent, epoch),
    pushWip: (agent) => upstream.pushWip(agent, workspace.repoOf(agent)),
    close: () => {
      services.value.close();
      coordination?.stop();
      peers?.stop();
    },
  });
}
