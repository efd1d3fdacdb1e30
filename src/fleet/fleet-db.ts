/**
 * The fleet's own rows (migration 006): worker heartbeats, session epochs (fencing) and per-run
 * settings. Plain functions over a pool; every statement is one round trip.
 */
import type pg from 'pg';
import { prepared } from '../store/prepared.js';

export interface FleetRun {
  runId: string;
  hubUrl: string;
  tokenSecret: Buffer;
  stopReason: string | null;
  /** How the run ends (a FinalRunStatus) once its owner said so; null while it runs. */
  stopStatus: string | null;
}

export interface WorkerRow {
  name: string;
  host: string;
  pid: number;
  slots: number;
  /** Milliseconds since the last heartbeat, by the database's clock. */
  silentMs: number;
  gone: boolean;
}

export async function registerWorker(
  pool: pg.Pool,
  worker: { name: string; host: string; pid: number; slots: number },
): Promise<void> {
  await pool.query(
    `INSERT INTO colony.fleet_workers (name, host, pid, slots) VALUES ($1, $2, $3, $4)
     ON CONFLICT (name) DO UPDATE SET host = $2, pid = $3, slots = $4, started_at = now(),
       heartbeat_at = now(), gone_at = NULL, gone_reason = NULL`,
    [worker.name, worker.host, worker.pid, worker.slots],
  );
}

/** False when this worker was declared gone meanwhile (another worker re-enqueued its sessions). */
export async function heartbeatWorker(pool: pg.Pool, name: string): Promise<boolean> {
  const res = await pool.query(
    `UPDATE colony.fleet_workers SET heartbeat_at = now() WHERE name = $1 AND gone_at IS NULL`,
    [name],
  );
  return (res.rowCount ?? 0) > 0;
}

export async function markWorkerGone(pool: pg.Pool, name: string, reason: string): Promise<boolean> {
  const res = await pool.query(
    `UPDATE colony.fleet_workers SET gone_at = now(), gone_reason = $2 WHERE name = $1 AND gone_at IS NULL`,
    [name, reason],
  );
  return (res.rowCount ?? 0) > 0;
}

/** Live workers silent for longer than `silentMs` (the dead, or the cut off). */
export async function silentWorkers(pool: pg.Pool, silentMs: number): Promise<WorkerRow[]> {
  const res = await pool.query<{ name: string; host: string; pid: number; slots: number; silent: string }>(
    `SELECT name, host, pid, slots, (extract(epoch FROM now() - heartbeat_at) * 1000)::bigint AS silent
     FROM colony.fleet_workers WHERE gone_at IS NULL AND heartbeat_at < now() - ($1::bigint * interval '1 millisecond')`,
    [silentMs],
  );
  return res.rows.map((r) => ({ ...r, silentMs: Number(r.silent), gone: false }));
}

export async function listWorkers(pool: pg.Pool): Promise<WorkerRow[]> {
  const res = await pool.query<{
    name: string;
    host: string;
    pid: number;
    slots: number;
    silent: string;
    gone: boolean;
  }>(
    `SELECT name, host, pid, slots, (extract(epoch FROM now() - heartbeat_at) * 1000)::bigint AS silent,
       gone_at IS NOT NULL AS gone
     FROM colony.fleet_workers ORDER BY name`,
  );
  return res.rows.map((r) => ({ ...r, silentMs: Number(r.silent) }));
}

export async function saveFleetRun(
  pool: pg.Pool,
  run: Omit<FleetRun, 'stopReason' | 'stopStatus'>,
): Promise<void> {
  // A resumed owner serves the hub at a new address with a new secret: old tokens stop working.
  await pool.query(
    `INSERT INTO colony.fleet_runs (run_id, hub_url, token_secret) VALUES ($1, $2, $3)
     ON CONFLICT (run_id) DO UPDATE SET hub_url = $2, token_secret = $3, stop_reason = NULL, stop_status = NULL`,
    [run.runId, run.hubUrl, run.tokenSecret],
  );
}

export async function stopFleetRun(
  pool: pg.Pool,
  runId: string,
  end: { status: string; reason: string },
): Promise<void> {
  await pool.query(
    `UPDATE colony.fleet_runs SET stop_reason = $2, stop_status = $3 WHERE run_id = $1 AND stop_reason IS NULL`,
    [runId, end.reason, end.status],
  );
}

export async function loadFleetRun(pool: pg.Pool, runId: string): Promise<FleetRun | null> {
  return (await loadFleetRuns(pool, [runId]))[0] ?? null;
}

function fleetRunOf(row: {
  run_id: string;
  hub_url: string;
  token_secret: Buffer;
  stop_reason: string | null;
  stop_status: string | null;
}): FleetRun {
  return {
    runId: row.run_id,
    hubUrl: row.hub_url,
    tokenSecret: row.token_secret,
    stopReason: row.stop_reason,
    stopStatus: row.stop_status,
  };
}

const TAKE_SESSION = prepared(
  `WITH old AS (SELECT session FROM colony.fleet_sessions WHERE run_id = $1 AND agent = $2)
   INSERT INTO colony.fleet_sessions (run_id, agent, epoch, worker, session) VALUES ($1, $2, 1, $3, $4)
   ON CONFLICT (run_id, agent) DO UPDATE
     SET epoch = colony.fleet_sessions.epoch + 1, worker = $3, session = $4, taken_at = now()
   RETURNING epoch, (SELECT session FROM old) AS previous, EXISTS (SELECT 1 FROM old) AS existed`,
);

/**
 * This worker takes the agent's session: the epoch goes up by one, so whoever held it before is
 * fenced off from now on (its next epoch check fails, the hub refuses its token). `takeover`: the
 * same session (DBOS workflow) was held before, by a worker that was lost or left. `first`: no session
 * of this agent was ever taken before (a fleet run's agents run only on workers: it never ran).
 */
export async function takeSession(
  pool: pg.Pool,
  session: { runId: string; agent: string; worker: string; session: string },
): Promise<{ epoch: number; takeover: boolean; first: boolean }> {
  const res = await pool.query<{ epoch: number; previous: string | null; existed: boolean }>({
    ...TAKE_SESSION,
    values: [session.runId, session.agent, session.worker, session.session],
  });
  const row = res.rows[0];
  if (!row) throw new Error('taking the session returned no epoch');
  return { epoch: row.epoch, takeover: row.previous === session.session, first: !row.existed };
}

/** The current epoch of each (run, agent) asked about; a missing session is absent. */
export async function sessionEpochs(
  pool: pg.Pool,
  sessions: readonly { runId: string; agent: string }[],
): Promise<Map<string, number>> {
  if (sessions.length === 0) return new Map();
  const res = await pool.query<{ run_id: string; agent: string; epoch: number }>(
    `SELECT s.run_id, s.agent, s.epoch FROM colony.fleet_sessions s
     JOIN unnest($1::text[], $2::text[]) AS q(run_id, agent) ON s.run_id = q.run_id AND s.agent = q.agent`,
    [sessions.map((s) => s.runId), sessions.map((s) => s.agent)],
  );
  return new Map(res.rows.map((r) => [sessionKey(r.run_id, r.agent), r.epoch]));
}

/** The fleet rows of the runs asked about (address, secret, stop reason), one round trip. */
export async function loadFleetRuns(pool: pg.Pool, runIds: readonly string[]): Promise<FleetRun[]> {
  if (runIds.length === 0) return [];
  const res = await pool.query<{
    run_id: string;
    hub_url: string;
    token_secret: Buffer;
    stop_reason: string | null;
    stop_status: string | null;
  }>(
    `SELECT run_id, hub_url, token_secret, stop_reason, stop_status FROM colony.fleet_runs WHERE run_id = ANY($1::text[])`,
    [runIds],
  );
  return res.rows.map(fleetRunOf);
}

export function sessionKey(runId: string, agent: string): string {
  return `${runId}\0${agent}`;
}
