/**
 * One run as a fleet worker hosts it: the run's spec (from its log), its hub mirror on this worker,
 * a PeerHost (the same one the owner uses for in-process peers) whose merge tools reach the owner's
 * queue over HTTP, and the tokens of the agents it runs. Opened on the run's first session here and
 * closed when its last one ends.
 */
import { join } from 'node:path';
import { agentEnv } from '../agent/tools/env.js';
import { issueAgentToken } from '../auth/index.js';
import { type Coordination, directMessageInjector } from '../coord/index.js';
import { eventOf } from '../core/events.js';
import { createScrubber, secretValuesFromEnv } from '../core/secrets.js';
import { type FleetRun, loadFleetRun } from '../fleet/fleet-db.js';
import { TOKEN_TTL_MS } from '../fleet/names.js';
import { err, ok, type Result } from '../lang/result.js';
import { RateGate } from '../run/rate-gate.js';
import { openSandbox } from '../sandbox/index.js';
import type { Store } from '../store/index.js';
import { scrubbingLog } from '../store/scrubbing-log.js';
import { catalogFromSpec, loadRunSpec } from '../topology/execute-run.js';
import { PeerHost } from '../topology/peers/peer-host.js';
import type { Emit } from '../topology/team-run.js';
import { replayedBudget } from '../topology/team-run.js';
import { RunWorkspace } from '../workspace/run-workspace.js';
import { integrationClient } from './integration-client.js';
import { openMirror, workerHubUpstream } from './worker-hub.js';

export interface WorkerRunOptions {
  store: Store;
  coord: Coordination;
  runId: string;
  /** The worker's own folder (mirrors and agents' repositories live below it). */
  dir: string;
  env: NodeJS.ProcessEnv;
}

export interface WorkerRun {
  runId: string;
  host: PeerHost;
  fleet: FleetRun;
  workspace: RunWorkspace;
  emit: Emit;
  /** Aborted when the owner says the run ends. */
  stop(reason: string): void;
  stopped: AbortSignal;
  setEpoch(agent: string, epoch: number): void;
  pushWip(agent: string): Promise<Result<void>>;
  close(): void;
}

export async function openWorkerRun(options: WorkerRunOptions): Promise<Result<WorkerRun>> {
  const { store, runId, env } = options;
  const fleet = await loadFleetRun(store.pool, runId);
  if (!fleet) return err(`run ${runId} is not a fleet run (no hub address was published for it)`);
  const loaded = await loadRunSpec(store.log, runId);
  if (!loaded) return err(`run ${runId} has no run.started event`);
  if (!loaded.ok) return err(`run ${runId}: ${loaded.error}`);
  const spec = loaded.spec;
  const sandbox = await openSandbox(spec.sandbox, env);
  if (!sandbox.ok) return err(`run ${runId} runs sandboxed, but not on this worker: ${sandbox.error}`);
  const catalog = catalogFromSpec(spec, env);
  const built = catalog.provider(spec.model);
  if (!built.ok) return err(`run ${runId}: ${built.error}`);
  const scrubber = createScrubber(secretValuesFromEnv(env));
  const log = scrubbingLog(store.log, scrubber);
  const emit: Emit = (kind, data, agent = null) =>
    log.append(eventOf(runId, agent, kind, scrubber.scrubValue(data)));
  const gate = new RateGate({
    onShrink: ({ value, used }) => {
      void emit('limit.hit', { limit: 'model_concurrency', value, used }).catch(() => {});
    },
  });

  const runDir = join(options.dir, 'runs', runId);
  const mirrorPath = join(runDir, 'hub.git');
  const mirror = await openMirror(mirrorPath);
  if (!mirror.ok) return mirror;
  const epochs = new Map<string, number>();
  const tokens = new Map<string, { token: string; epoch: number; expiresAt: number }>();
  const tokenFor = (agent: string): string => {
    const epoch = epochs.get(agent);
    if (epoch === undefined) throw new Error(`${agent} has no session on this worker`);
    const held = tokens.get(agent);
    const now = Date.now();
    if (held && held.epoch === epoch && held.expiresAt - now > TOKEN_TTL_MS / 3) return held.token;
    const expiresAt = now + TOKEN_TTL_MS;
    const token = issueAgentToken(fleet.tokenSecret, { runId, agent, expiresAt, epoch });
    tokens.set(agent, { token, epoch, expiresAt });
    return token;
  };
  const hubUrl = `${fleet.hubUrl}/git/${runId}/hub.git`;
  const upstream = workerHubUpstream({ mirrorPath, hubUrl, tokenFor });
  const commandEnv = agentEnv(env);
  const workspace = new RunWorkspace({
    runId,
    runDir,
    userRepo: spec.repo,
    baseCommit: spec.baseCommit,
    log,
    setup: spec.setup,
    env: commandEnv,
    sandbox: sandbox.value,
    upstream,
  });
  const stopper = new AbortController();
  // Merge tools wait for outcomes over HTTP; each call names its agent through the token.
  const ports = new Map<string, ReturnType<typeof integrationClient>>();
  const portFor = (agent: string) => {
    let port = ports.get(agent);
    if (!port) {
      port = integrationClient({
        baseUrl: fleet.hubUrl,
        runId,
        token: () => tokenFor(agent),
        signal: stopper.signal,
      });
      ports.set(agent, port);
    }
    return port;
  };
  const host = new PeerHost({
    spec,
    log,
    emit,
    scrubber,
    provider: gate.wrap(built.provider),
    commandEnv,
    sandbox: sandbox.value,
    coord: options.coord,
    budget: await replayedBudget({ spec, log }),
    signal: stopper.signal,
    injectorFor: (agent) => directMessageInjector(options.coord.messages, runId, agent),
    workspace,
    integrationFor: portFor,
    integrators: [],
    afterMutation: async (agent) => {
      const pushed = await upstream.pushWip(agent, workspace.repoOf(agent));
      if (!pushed.ok) await emit('warning', { message: `${agent}: ${pushed.error}` }, agent);
    },
  });
  return ok({
    runId,
    host,
    fleet,
    workspace,
    emit,
    stop: (reason) => stopper.abort(new Error(reason)),
    stopped: stopper.signal,
    setEpoch: (agent, epoch) => epochs.set(agent, epoch),
    pushWip: (agent) => upstream.pushWip(agent, workspace.repoOf(agent)),
    close: () => host.stop(),
  });
}
