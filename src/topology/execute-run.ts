/**
 * Executing a run in this process: used by `colony run` (a new run) and `colony resume` (a run whose
 * process died). Both take the run's ownership lock, rebuild the same run from its spec and hand the
 * phases to DBOS; the agent loop replays whatever the log already holds.
 */
import { hostname } from 'node:os';
import { type Coordination, createCoordination, runLeaseOptions } from '../coord/index.js';
import type { StoredEvent } from '../core/events.js';
import { parseListen } from '../fleet/listen.js';
import { openFleetOwner } from '../fleet/owner.js';
import type { ModelCatalog } from '../model/catalog.js';
import type { Provider } from '../model/types.js';
import { claimProcessForRun, executeDurably, releaseProcessForRun } from '../run/durable.js';
import { observeLog } from '../run/observed-log.js';
import { RunControl } from '../run/run-control.js';
import type { RunSlot } from '../run/run-slots.js';
import { type RunSlotSettings, takeRunSlot } from '../run/run-slots-run.js';
import type { RunSpec } from '../run/run-spec.js';
import { parseStoredRunSpec } from '../run/run-spec-schema.js';
import { anchorFinishedRun } from '../store/anchor/index.js';
import type { Store } from '../store/index.js';
import type { EventLog } from '../store/types.js';
import { type RunSummary, summarise } from '../view/summary.js';
import type { RunContext, RunOutcome } from './context.js';
import { TOPOLOGIES } from './index.js';
import { openRunServices, type RunServices } from './session/run-services.js';

export interface ExecuteOptions {
  store: Store;
  spec: RunSpec;
  provider: Provider;
  env: NodeJS.ProcessEnv;
  /** Secret values from config (beside those found in the environment). */
  extraSecrets?: string[];
  signal: AbortSignal;
  onEvent?: (event: StoredEvent) => void;
  /** True when resuming a run whose previous process died. */
  resumed: boolean;
  /** A supervisor resumed it on its own (supervise/): logged as run.recovered once the lock is ours. */
  recovered?: { by: string; afterMs: number };
  /** The per-server cap of concurrent runs (default: 10, wait; see run-slots.ts). */
  runSlots?: RunSlotSettings;
  /** The models profiles may name (default: the run's catalog, from the spec and `env`). */
  catalog?: ModelCatalog;
  /**
   * This process's coordination services (messages, claims, context), kept open by the caller;
   * default: created for the run (with its claim lease) and closed when it ends.
   */
  coordination?: Coordination;
}

export type ExecuteResult = { ok: true; summary: RunSummary } | { ok: false; error: string };

export async function executeRun(options: ExecuteOptions): Promise<ExecuteResult> {
  const { spec } = options;
  const busy = claimProcessForRun(spec.runId);
  if (busy) return { ok: false, error: busy };
  try {
    return await executeClaimed(options);
  } finally {
    releaseProcessForRun(spec.runId);
  }
}

async function executeClaimed(options: ExecuteOptions): Promise<ExecuteResult> {
  const { store, spec } = options;
  const lock = await store.tryLockRun(spec.runId);
  if (!lock.ok) {
    return {
      ok: false,
      error:
        lock.error ??
        `run ${spec.runId} is being executed by another live process; wait for it or stop it first`,
    };
  }
  let slot: RunSlot | null = null;
  // Every topology's agents take direct messages (one LISTEN connection); peers also coordinate
  // through claims and the shared context.
  const coord = options.coordination ?? (await createCoordination(store, runLeaseOptions(spec.claimLeaseMs)));
  const ownsCoord = !options.coordination;
  let services: RunServices | null = null;
  try {
    const opened = await openRunServices({
      spec,
      store,
      log: options.onEvent ? observeLog(store.log, options.onEvent) : store.log,
      coord,
      env: options.env,
      extraSecrets: options.extraSecrets,
      provider: options.provider,
      catalog: options.catalog,
    });
    if (!opened.ok) return opened;
    services = opened.value;
    const { log } = services;
    const taken = await takeRunSlot({
      store,
      runId: spec.runId,
      log,
      env: options.env,
      signal: options.signal,
      settings: options.runSlots,
    });
    if (!taken.ok) return taken;
    slot = taken.slot;
    if (options.resumed) {
      await store.runs.setRunOwner(spec.runId, process.pid, hostname());
      await store.runs.setRunStatus(spec.runId, 'running');
      await log.append({
        runId: spec.runId,
        agent: null,
        kind: 'run.resumed',
        data: { pid: process.pid, host: hostname() },
      });
      if (options.recovered)
        await log.append({ runId: spec.runId, agent: null, kind: 'run.recovered', data: options.recovered });
    }
    const control = new RunControl(options.signal, {
      deadlineAt: spec.deadlineAt,
      log: store.log,
      runId: spec.runId,
    });
    const context: RunContext = {
      ...services,
      spec,
      home: store.home,
      history: { listRuns: (limit) => store.runs.listRuns(limit), log: store.log },
      signal: control.signal,
      endCause: () => control.cause,
      endRun: (cause) => control.end(cause),
      coord,
      setRunStatus: async (status) => {
        await store.runs.setRunStatus(spec.runId, status);
      },
    };
    const systemDatabaseUrl = store.superuserUrl ?? store.databaseUrl;
    if (spec.fleet) {
      const listen = spec.fleet.listen ? parseListen(spec.fleet.listen) : null;
      context.fleet = await openFleetOwner({
        runId: spec.runId,
        pool: store.pool,
        systemDatabaseUrl,
        listenHost: listen?.host,
        listenPort: listen?.port,
        advertiseUrl: spec.fleet.advertiseUrl,
        tls: spec.fleet.tls,
        insecureHttp: spec.fleet.insecureHttp,
        log: (line) =>
          // Said while the database may be away (a failed poll): a line lost then is no failure.
          void log
            .append({ runId: spec.runId, agent: null, kind: 'warning', data: { message: line } })
            .catch(() => {}),
      });
    }
    const phases = TOPOLOGIES[spec.topology].phases(context);
    // The ownership lock's connection dropping means the database went away (or cut us off): another
    // process may take the run over, so this one stops its agents and writes nothing more.
    const lost = lock.lost.then((reason) => ({ lost: reason }));
    try {
      const ended = await Promise.race([
        executeDurably<RunOutcome>({
          runId: spec.runId,
          phases,
          systemDatabaseUrl,
          fencedWhen: lock.lost,
          say: (message) =>
            void log
              .append({ runId: spec.runId, agent: null, kind: 'warning', data: { message } })
              .catch(() => {}),
        }).then(() => null),
        lost,
      ]);
      if (ended) {
        // Paused, not ending: the workers keep their sessions for the process that resumes the run.
        context.fleet?.abandon();
        control.end({ status: 'stopped', reason: 'lost the database' });
        return pausedRun(spec.runId, ended.lost);
      }
    } catch (err) {
      // A failure because the database went away is the lost lock again (it may be noticed first here).
      const gone = await lock.check();
      if (gone) {
        context.fleet?.abandon();
        return pausedRun(spec.runId, gone);
      }
      // An unexpected failure (e.g. the repository vanished): record it so the run is not left running.
      const reason = `run failed: ${(err as Error).message}`;
      await log.append({
        runId: spec.runId,
        agent: null,
        kind: 'run.finished',
        data: { status: 'failed', reason, resultBranch: null },
      });
      await store.runs.setRunStatus(spec.runId, 'failed');
    } finally {
      control.dispose();
      await context.fleet?.close('the run ended');
    }
    await log.flush();
    await anchorFinishedRun(store, spec.runId, log); // the signed head (docs/audit.md); never fails the run
    return { ok: true, summary: summarise(spec.runId, await store.log.read(spec.runId)) };
  } finally {
    services?.close();
    if (ownsCoord) await coord.close();
    await slot?.release();
    await lock.release();
  }
}

/** The spec of an existing run, from its `run.started` event, validated (null when there is none). */
export async function loadRunSpec(
  log: EventLog,
  runId: string,
): Promise<{ ok: true; spec: RunSpec } | { ok: false; error: string } | null> {
  const [started] = await log.read(runId, { kinds: ['run.started'], limit: 1 });
  if (!started) return null;
  return parseStoredRunSpec(started.data.config);
}

/** This process lost the run's ownership (its database went away): it stops and says how to go on. */
function pausedRun(runId: string, reason: string): ExecuteResult {
  return {
    ok: false,
    error:
      `run ${runId} paused: ${reason}. Nothing more was written; once the database is back, ` +
      `\`colony resume ${runId}\` finishes it from its log.`,
  };
}
