/**
 * A fleet worker (`colony worker`): one process that executes agent sessions of any fleet run, taken
 * from the shared DBOS queue with at most `slots` at once. DBOS does the dispatch (and the recovery of
 * this worker's own sessions when it starts again under the same name); failure detection is ours:
 *
 * - every second the worker heartbeats, checks its sessions' epochs (a session another worker took
 *   over is fenced: it stops here without writing more) and whether their runs are stopping;
 * - a worker silent for LOST_AFTER_MS is declared gone by whichever live worker notices first (one
 *   UPDATE decides), which re-enqueues its pending sessions through DBOS's recovery for that executor
 *   id; they resume on any worker from the event log and their last pushed work;
 * - a worker declared gone that is in fact alive (paused, cut off) finds out at its next heartbeat,
 *   fences all its sessions and joins again as a fresh worker.
 */
import { hostname } from 'node:os';
import { DBOS } from '@dbos-inc/dbos-sdk';
// DBOS's own recovery for one executor id (what its admin endpoint and Conductor call): reached via
// the package's `internal/*` export, as the SDK has no public call for another executor's workflows.
import { getExecutor } from '@dbos-inc/dbos-sdk/internal/dbos';
import pg from 'pg';
import { fencedStop, isFencedStop } from '../agent/fence.js';
import { type Coordination, createCoordination } from '../coord/index.js';
import { eventOf } from '../core/events.js';
import {
  heartbeatWorker,
  loadFleetRuns,
  markWorkerGone,
  registerWorker,
  sessionEpochs,
  sessionKey,
  silentWorkers,
  takeSession,
} from '../fleet/fleet-db.js';
import {
  DBOS_APP,
  executorIdOf,
  FLEET_QUEUE,
  FLEET_VERSION,
  HEARTBEAT_MS,
  LOST_AFTER_MS,
  QUEUE_POLL_MS,
  SESSION_WORKFLOW,
  type SessionEnd,
  type SessionInput,
  sessionWorkflowId,
} from '../fleet/names.js';
import type { AgentEnd } from '../run/agent-end.js';
import { withLaunchLock } from '../run/durable.js';
import {
  DATABASE_WAIT_MS,
  databaseAway,
  describeDatabaseError,
  whileDatabaseAway,
} from '../store/database-away.js';
import type { Store } from '../store/index.js';
import { openWorkerRun, type WorkerRun, type WorkerTransport } from './worker-run.js';

export interface WorkerOptions {
  store: Store;
  name: string;
  slots: number;
  /** The worker's folder (hub mirrors, agents' repositories). */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** How it reaches owners (`--ca`, `--insecure-http`; default: Node's roots, loopback-only HTTP). */
  transport?: WorkerTransport;
  signal: AbortSignal;
  say?: (line: string) => void;
}

interface Session {
  runId: string;
  agent: string;
  epoch: number;
  abort: AbortController;
  /** Settles when its agent's loop has stopped (before a fenced session waits to be handed back). */
  ran: Promise<void>;
}

/** How often a session that ended because the database went away is run on from its log. */
const OUTAGE_RERUNS = 5;

/** The worker this process is (DBOS is one per process, and so is the registered workflow). */
let current: WorkerState | null = null;

class WorkerState {
  readonly sessions = new Map<string, Session>();
  private readonly runs = new Map<string, { opening: Promise<WorkerRun | string>; users: number }>();
  /**
   * The heartbeat's own connection: on the app pool it waited behind hundreds of agents' queries, and
   * busy workers were declared gone while alive (two at once in a 1,000-peer run).
   */
  readonly beatPool: pg.Pool;

  constructor(
    readonly options: WorkerOptions,
    readonly coord: Coordination,
  ) {
    this.beatPool = new pg.Pool({ ...options.store.connection, max: 1 });
    this.beatPool.on('error', () => {});
  }

  async runSession(input: SessionInput): Promise<SessionEnd> {
    const end = await this.hostSession(input);
    // A session that ends unstarted is the agent's outcome for good (DBOS keeps it): say why, here.
    if (!end.started)
      this.options.say?.(
        `worker ${this.options.name}: ${sessionWorkflowId(input.runId, input.agent, input.task, input.attempt)} did not start: ${end.error}`,
      );
    return end;
  }

  private async hostSession(input: SessionInput): Promise<SessionEnd> {
    const { name } = this.options;
    const { runId, agent } = input;
    const run = await this.openRunWaitingForDatabase(runId);
    try {
      if (typeof run === 'string') return { agent, started: false, error: run, worker: name };
      if (run.stopped.aborted || run.fleet.stopReason)
        return { agent, started: false, error: 'the run ended first', worker: name };
      const session = sessionWorkflowId(runId, agent, input.task, input.attempt);
      // A database restarting under the takeover is waited out: failing here ends the agent for good.
      const taken = await whileDatabaseAway(() =>
        takeSession(this.options.store.pool, { runId, agent, worker: name, session }),
      );
      const { epoch } = taken;
      run.setEpoch(agent, epoch);
      // Not awaited: it commits before anything the session logs (this worker's appends keep order),
      // and the session's first model request need not wait for it.
      const placed = run.emit(
        'agent.placed',
        { worker: name, host: hostname(), epoch, session, takeover: taken.takeover },
        agent,
      );
      placed.catch(() => {});
      let ranDone = () => {};
      const held: Session = {
        runId,
        agent,
        epoch,
        abort: new AbortController(),
        ran: new Promise<void>((resolve) => {
          ranDone = resolve;
        }),
      };
      // The same agent's session already running in this process: DBOS dispatched its workflow again
      // here (a re-enqueue after a database restart; the soak saw two loops of one peer answer the
      // same step). The newer epoch wins: the older one is fenced, and its loop has stopped before
      // this one starts. Kept in the map, it would no longer be seen by the sweep's fencing.
      const previous = this.sessions.get(sessionKey(runId, agent));
      if (previous) {
        previous.abort.abort(
          fencedStop(`the session was taken over in this process (epoch ${epoch} > ${previous.epoch})`),
        );
        await previous.ran;
      }
      this.sessions.set(sessionKey(runId, agent), held);
      try {
        const end = await this.runThroughOutages(run, input, held.abort.signal, taken.first).finally(ranDone);
        if (held.abort.signal.aborted && !run.stopped.aborted) {
          // Fenced (another worker runs it now) or this worker is leaving: the session is not ours to
          // end. DBOS runs it again where it was re-enqueued.
          const why: unknown = held.abort.signal.reason;
          this.options.say?.(`${session}: ${isFencedStop(why) ? why.reason : String(why)}`);
          // Leaving: the process ends; nothing to settle.
          if (this.leaving) return await new Promise<never>(() => {});
          // Declared gone or taken over while alive: settle once DBOS has handed the session to
          // another execution — then this end is not recorded (DBOS 5.3 writes an outcome only for
          // the row's owner) and the slot is free again. A session that never settled held one of
          // this worker's DBOS slots for good: two workers declared gone under load held all of
          // theirs, and nothing ran any more.
          await handedBack(session, executorIdOf(name));
          return {
            agent,
            started: false,
            error: 'fenced: another execution runs this session',
            worker: name,
          };
        }
        return end.started
          ? { agent, started: true, outcome: end.outcome, steps: end.steps, worker: name }
          : { agent, started: false, error: end.error, worker: name };
      } finally {
        if (this.sessions.get(sessionKey(runId, agent)) === held)
          this.sessions.delete(sessionKey(runId, agent));
      }
    } finally {
      this.releaseRun(runId);
    }
  }

  /**
   * The heartbeat, once a second on its own timer: a slow sweep (a dead worker's recovery, a loaded
   * database) never delays it, so a live worker is not declared gone for being busy.
   */
  async beat(): Promise<void> {
    const { store, name } = this.options;
    const pool = store.pool;
    const alive = await heartbeatWorker(this.beatPool, name);
    if (!alive) {
      // Declared gone while alive: its sessions were re-enqueued; none of them is ours any more.
      for (const session of this.sessions.values())
        session.abort.abort(fencedStop('this worker was declared gone'));
      this.options.say?.(`worker ${name} was declared gone (silent too long); joining again`);
      await registerWorker(pool, { name, host: hostname(), pid: process.pid, slots: this.options.slots });
    }
  }

  /** Fencing, run stops and new addresses, and the sweep for dead workers: once a second. */
  async sweep(): Promise<void> {
    const { store, name } = this.options;
    const pool = store.pool;
    const live = [...this.sessions.values()];
    const epochs = await sessionEpochs(pool, live);
    for (const session of live) {
      const now = epochs.get(sessionKey(session.runId, session.agent));
      if (now !== session.epoch)
        session.abort.abort(fencedStop(`the session was taken over (epoch ${now} > ${session.epoch})`));
    }
    // Runs that stop, and runs whose owner was resumed (a new hub address and token secret).
    for (const row of await loadFleetRuns(pool, [...this.runs.keys()])) {
      const entry = this.runs.get(row.runId);
      const run = entry ? await entry.opening : null;
      if (run && typeof run !== 'string') run.refresh(row);
    }
    for (const dead of await silentWorkers(pool, LOST_AFTER_MS)) {
      if (dead.name === name) continue;
      if (!(await markWorkerGone(pool, dead.name, `no heartbeat for ${dead.silentMs} ms`))) continue;
      const recovered = await getExecutor().recoverPendingWorkflows([executorIdOf(dead.name)]);
      this.options.say?.(`worker ${dead.name} is gone: re-enqueued ${recovered.length} session(s)`);
      await this.noteLost(
        dead.name,
        dead.silentMs,
        recovered.map((h: { workflowID: string }) => h.workflowID),
      );
    }
  }

  private leaving = false;

  /** Shutdown: this worker's sessions are handed back to the queue for the others. */
  async leave(): Promise<number> {
    this.leaving = true;
    for (const session of this.sessions.values()) session.abort.abort(fencedStop('the worker is stopping'));
    await markWorkerGone(this.options.store.pool, this.options.name, 'stopped');
    const handed = await getExecutor().recoverPendingWorkflows([executorIdOf(this.options.name)]);
    return handed.length;
  }

  private async noteLost(worker: string, silentMs: number, workflowIds: string[]): Promise<void> {
    const byRun = new Map<string, number>();
    for (const id of workflowIds) {
      const runId = id.slice(0, id.indexOf('/'));
      byRun.set(runId, (byRun.get(runId) ?? 0) + 1);
    }
    for (const [runId, reenqueued] of byRun) {
      await this.options.store.log
        .append(eventOf(runId, null, 'worker.lost', { worker, silentMs, reenqueued, by: this.options.name }))
        .catch(() => {});
    }
  }

  private acquireRun(runId: string): Promise<WorkerRun | string> {
    let entry = this.runs.get(runId);
    if (!entry) {
      const opening = openWorkerRun({
        store: this.options.store,
        coord: this.coord,
        runId,
        dir: this.options.dir,
        env: this.options.env,
        transport: this.options.transport ?? { insecureHttp: false },
      }).then(
        (r) => (r.ok ? r.value : r.error),
        // A query that threw (the database went away mid-open) is a reason like any other.
        (error: unknown) => `could not open run ${runId} here: ${describeDatabaseError(error)}`,
      );
      entry = { opening, users: 0 };
      this.runs.set(runId, entry);
    }
    entry.users++;
    return entry.opening;
  }

  /**
   * The session, run again from its log when it ended because the database went away (an event that
   * could not be committed, a query that failed): DBOS keeps a session's end as the agent's outcome
   * for good, so that end would end the agent although nothing is wrong with its work. Waits for the
   * database first (at most DATABASE_WAIT_MS), and runs it again at most a few times.
   */
  private async runThroughOutages(
    run: WorkerRun,
    input: SessionInput,
    signal: AbortSignal,
    fresh: boolean,
  ): Promise<AgentEnd> {
    for (let again = 0; ; again++) {
      let why: string | null;
      let end: AgentEnd | null = null;
      try {
        end = await run.runSession(input, signal, { fresh: fresh && again === 0 });
        why = end.started ? (end.outcome.status === 'done' ? null : end.outcome.reason) : end.error;
      } catch (error) {
        if (signal.aborted || !databaseAway(error) || again >= OUTAGE_RERUNS) throw error;
        why = String((error as Error).message ?? error);
      }
      if (end && (why === null || signal.aborted || !databaseAway(why) || again >= OUTAGE_RERUNS)) return end;
      this.options.say?.(`${input.agent} of ${input.runId}: the database went away (${why}); running it on`);
      await whileDatabaseAway(async () => {
        await this.options.store.pool.query('SELECT 1');
      });
    }
  }

  /**
   * The run, opened; a failure because the database is away (restarting) is waited out: a session
   * that ended "not started" is recorded by DBOS as its outcome, and the agent would never run again.
   */
  private async openRunWaitingForDatabase(runId: string): Promise<WorkerRun | string> {
    const deadline = Date.now() + DATABASE_WAIT_MS;
    for (let pause = 200; ; pause = Math.min(2_000, pause * 2)) {
      const run = await this.acquireRun(runId);
      if (typeof run !== 'string' || !databaseAway(run) || Date.now() >= deadline) return run;
      this.releaseRun(runId);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  private releaseRun(runId: string): void {
    const entry = this.runs.get(runId);
    if (!entry) return;
    entry.users--;
    if (entry.users > 0) return;
    this.runs.delete(runId);
    void entry.opening.then((run) => {
      if (typeof run !== 'string') run.close();
    });
  }
}

/** Resolves once DBOS no longer has `workflowId` running under `executorId` (re-enqueued, taken, ended). */
async function handedBack(workflowId: string, executorId: string): Promise<void> {
  for (;;) {
    const status = await DBOS.getWorkflowStatus(workflowId).catch(() => undefined);
    if (status === null || (status && (status.status !== 'PENDING' || status.executorId !== executorId)))
      return;
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS));
  }
}

const sessionWorkflow = DBOS.registerWorkflow(
  async (input: SessionInput): Promise<SessionEnd> => {
    const worker = current;
    if (!worker) throw new Error('this process is not a fleet worker');
    // No step: the session's own durability is the event log (a re-run replays the agent's loop,
    // and a finished one ends at once), so a checkpoint would only add ~6 statements per session —
    // a quarter of a subagent task's round trips to Postgres (bench/README § fleet).
    return worker.runSession(input);
  },
  { name: SESSION_WORKFLOW },
);
void sessionWorkflow;

/** Runs the worker until `signal` aborts; then hands its sessions back and stops. */
export async function runWorker(options: WorkerOptions): Promise<void> {
  if (current) throw new Error('this process is already a fleet worker');
  const { store, name, slots } = options;
  const systemDatabaseUrl = store.superuserUrl ?? store.databaseUrl;
  // The default claim timing: each run's claims take that run's lease (worker-run.ts, forRun).
  const coord = await createCoordination(store);
  const state = new WorkerState(options, coord);
  current = state;
  await registerWorker(store.pool, { name, host: hostname(), pid: process.pid, slots });
  DBOS.setConfig({
    name: DBOS_APP,
    systemDatabaseUrl,
    systemDatabaseSchemaName: 'dbos',
    executorID: executorIdOf(name),
    applicationVersion: FLEET_VERSION,
    logLevel: 'error',
    systemDatabasePoolSize: Math.max(4, Math.min(20, slots)),
  });
  let timers: NodeJS.Timeout[] = [];
  try {
    // launch() first re-enqueues what this worker (same name) left pending when it last died.
    await withLaunchLock(systemDatabaseUrl, async () => {
      await DBOS.launch();
      await DBOS.registerQueue(FLEET_QUEUE, {
        workerConcurrency: slots,
        minPollingIntervalMs: QUEUE_POLL_MS,
        onConflict: 'always_update',
      });
    });
    options.say?.(`worker ${name}: ${slots} slot(s), executor ${executorIdOf(name)}`);
    const every = (work: () => Promise<void>, what: string): NodeJS.Timeout => {
      let running = false;
      return setInterval(() => {
        if (running) return;
        running = true;
        work()
          .catch((error: unknown) =>
            options.say?.(`worker ${name}: ${what} failed: ${(error as Error).message}`),
          )
          .finally(() => {
            running = false;
          });
      }, HEARTBEAT_MS);
    };
    timers = [every(() => state.beat(), 'heartbeat'), every(() => state.sweep(), 'sweep')];
    await new Promise<void>((resolve) => {
      if (options.signal.aborted) resolve();
      options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    for (const t of timers) clearInterval(t);
    timers = [];
    const handed = await state.leave();
    options.say?.(`worker ${name} stopped; handed ${handed} session(s) back to the queue`);
  } finally {
    for (const t of timers) clearInterval(t);
    current = null;
    await state.beatPool.end().catch(() => {});
    // Fenced sessions never settle: do not wait for them.
    await Promise.race([DBOS.shutdown(), new Promise((resolve) => setTimeout(resolve, 3000))]).catch(
      () => {},
    );
    await coord.close();
  }
}
