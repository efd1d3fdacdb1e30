/**
 * Durable execution with DBOS Transact at a coarse grain: one DBOS workflow per run whose steps are
 * the run's phases (prepare, work, finalize). Finer-grained durability (every model response and tool
 * result) comes from our own batched event log, which the agent loop replays on recovery; a DBOS
 * checkpoint per model/tool call measured 3.35× the ideal makespan on this machine kind, this grain ~1.0×.
 *
 * Each process that executes a run uses the executor id `run:<runId>`, so `DBOS.launch()` in
 * `colony resume` recovers exactly that run's pending workflow and nothing else. Read-only commands
 * never launch DBOS, so they can never resume (and spend on) anything.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';

export interface RunPhases<R> {
  prepare(): Promise<void>;
  work(): Promise<void>;
  finalize(): Promise<R>;
}

// Phases of runs hosted by this process, looked up by the registered workflow (which must be a
// module-level function so DBOS can find it again on recovery).
const hosted = new Map<string, RunPhases<unknown>>();

const runWorkflow = DBOS.registerWorkflow(
  async (runId: string): Promise<unknown> => {
    const phases = hosted.get(runId);
    if (!phases) throw new Error(`run ${runId} is not hosted by this process`);
    await DBOS.runStep(() => phases.prepare(), { name: 'prepare' });
    await DBOS.runStep(() => phases.work(), { name: 'work' });
    return DBOS.runStep(() => phases.finalize(), { name: 'finalize' });
  },
  { name: 'colony.run' },
);

/**
 * Pinned (not a hash of the sources) so a code edit never strands pending work from an older build,
 * and per run: DBOS dequeues recovered workflows by application version, so with one shared version
 * any Colony process could pick up another process's recovered run (which only its host can run).
 */
function applicationVersion(runId: string): string {
  return `colony-durable-1:${runId}`;
}

/**
 * DBOS creates and migrates its system schema at launch without a lock between processes; two first
 * launches at once can break it for good. Launches are serialised by a Postgres advisory lock.
 */
export async function withLaunchLock<T>(
  databaseUrl: string,
  fn: () => Promise<T>,
  waiting: {
    /** Told who holds the lock when it was not free for `afterMs` (and again each as long). */
    say?: (line: string) => void;
    afterMs?: number;
  } = {},
): Promise<T> {
  const { say, afterMs = LAUNCH_WAIT_SAY_MS } = waiting;
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    // Try-lock in a loop: a session blocked in pg_advisory_lock keeps a transaction open, and DBOS's
    // migrations (CREATE INDEX CONCURRENTLY) wait for every open transaction — a silent deadlock.
    const started = Date.now();
    let said = started;
    for (;;) {
      const got = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${LAUNCH_LOCK}) AS ok`);
      if (got.rows[0]?.ok) break;
      if (say && Date.now() - said >= afterMs) {
        said = Date.now();
        const holder = await launchLockHolder(client).catch((error: Error) => `unknown (${error.message})`);
        say(`waiting ${Math.round((said - started) / 1000)} s for DBOS's launch lock, held by ${holder}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return await fn();
  } finally {
    await client.end().catch(() => {});
  }
}

const LAUNCH_LOCK = "hashtext('colony.dbos.launch')";
const LAUNCH_WAIT_SAY_MS = 15_000;

/** Who holds the launch lock: its backend's pid, application and what it runs, from pg_stat_activity. */
async function launchLockHolder(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{
    pid: number;
    app: string;
    state: string;
    query: string;
    age: string;
  }>(
    `SELECT a.pid, a.application_name AS app, a.state, left(a.query, 160) AS query,
            coalesce(round(extract(epoch FROM now() - a.state_change))::text, '?') AS age
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((l.classid::bigint << 32) | l.objid::bigint) = (${LAUNCH_LOCK})::bigint
        AND l.objsubid = 1`,
  );
  const row = rows[0];
  if (!row) return 'nobody any more';
  return `backend ${row.pid} (${row.app || 'no application name'}, ${row.state} for ${row.age} s: ${row.query})`;
}

/** The run this process executes now: DBOS is one per process (its config, launch and shutdown). */
let executing: string | null = null;

/**
 * Reserves this process for `runId`; null when it is free (or already this run's), else why not: a
 * second run would reconfigure and then shut down the DBOS of the first under it. Synchronous, so two
 * runs started at once cannot both pass.
 */
export function claimProcessForRun(runId: string): string | null {
  if (executing !== null && executing !== runId) {
    return (
      `this process is already executing run ${executing}; one process executes one run at a time ` +
      `(start run ${runId} in another process, or after the first ends)`
    );
  }
  executing = runId;
  return null;
}

export function releaseProcessForRun(runId: string): void {
  if (executing === runId) executing = null;
}

export async function executeDurably<R>(options: {
  runId: string;
  phases: RunPhases<R>;
  systemDatabaseUrl: string;
  /**
   * Resolves when this process no longer owns the run (its lock's connection dropped): from then on
   * no phase settles, so DBOS records no outcome that another process would replay.
   */
  fencedWhen?: Promise<unknown>;
  /** Told what the process waits for before the run can go on (another process's DBOS launch). */
  say?: (line: string) => void;
}): Promise<R> {
  const claimedHere = executing === null;
  const busy = claimProcessForRun(options.runId);
  if (busy) throw new Error(busy);
  const phases = options.fencedWhen ? fencedPhases(options.phases, options.fencedWhen) : options.phases;
  hosted.set(options.runId, phases as RunPhases<unknown>);
  DBOS.setConfig({
    name: 'colony',
    systemDatabaseUrl: options.systemDatabaseUrl,
    systemDatabaseSchemaName: 'dbos',
    executorID: `run:${options.runId}`,
    applicationVersion: applicationVersion(options.runId),
    logLevel: 'error',
    systemDatabasePoolSize: 4,
  });
  try {
    await withLaunchLock(options.systemDatabaseUrl, () => DBOS.launch(), {
      ...(options.say ? { say: options.say } : {}),
    });
    // Idempotent: when launch() already recovered this run's workflow, this returns its handle.
    const handle = await DBOS.startWorkflow(runWorkflow, { workflowID: options.runId })(options.runId);
    return (await handle.getResult()) as R;
  } finally {
    hosted.delete(options.runId);
    try {
      await DBOS.shutdown();
    } finally {
      if (claimedHere) releaseProcessForRun(options.runId);
    }
  }
}

/**
 * The phases of a run this process may stop owning. A phase that ends after the run's lock was lost
 * ended because of it (its agents were stopped as the database went away), not because its work was
 * done: it never settles, so DBOS records neither a result nor an error for it — the process that
 * resumes the run replays the phase instead of skipping it as done or failing with this one's error.
 */
export function fencedPhases<R>(phases: RunPhases<R>, lost: Promise<unknown>): RunPhases<R> {
  let gone = false;
  void lost.then(() => {
    gone = true;
  });
  const never = <T>() => new Promise<T>(() => {});
  const hold =
    <T>(phase: () => Promise<T>) =>
    (): Promise<T> =>
      phase().then(
        (value) => (gone ? never<T>() : value),
        (error: unknown) => (gone ? never<T>() : Promise.reject(error)),
      );
  return {
    prepare: hold(() => phases.prepare()),
    work: hold(() => phases.work()),
    finalize: hold(() => phases.finalize()),
  };
}
