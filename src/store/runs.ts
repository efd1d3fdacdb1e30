import type pg from 'pg';
import type { RunStatus } from '../core/events.js';
import type { RunRow } from './types.js';

/** A run row with the fields only some readers need. */
export interface RunRecord extends RunRow {
  pid: number | null;
  host: string | null;
  config: Record<string, unknown>;
}

export interface NewRun {
  runId: string;
  topology: string;
  goal: string;
  repo: string;
  status?: RunStatus;
  pid?: number | null;
  host?: string | null;
  config?: Record<string, unknown>;
}

export type RunResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface RunStore {
  createRun(run: NewRun): Promise<RunResult<RunRecord>>;
  /** Sets the status; a final status also sets finished_at (running clears it). */
  setRunStatus(runId: string, status: RunStatus): Promise<RunResult<RunRecord>>;
  /** Records which process now executes the run (resume). */
  setRunOwner(runId: string, pid: number, host: string): Promise<RunResult<RunRecord>>;
  getRun(runId: string): Promise<RunRecord | null>;
  /** Newest first. */
  listRuns(limit?: number): Promise<RunRecord[]>;
  /** Every run whose row says running (live, or interrupted: its owner gone), oldest first. */
  listRunning(): Promise<RunRecord[]>;
}

const ISO = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const COLUMNS = `run_id, topology, goal, repo, status, ${ISO('created_at')} AS created_at,
  ${ISO('finished_at')} AS finished_at, pid, host, config`;

interface Row {
  run_id: string;
  topology: string;
  goal: string;
  repo: string;
  status: string;
  created_at: string;
  finished_at: string | null;
  pid: number | null;
  host: string | null;
  config: Record<string, unknown>;
}

function toRecord(r: Row): RunRecord {
  return {
    runId: r.run_id,
    topology: r.topology,
    goal: r.goal,
    repo: r.repo,
    status: r.status,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    pid: r.pid,
    host: r.host,
    config: r.config,
  };
}

function failure(action: string, err: unknown): { ok: false; error: string } {
  const e = err as { code?: string; message?: string };
  if (e.code === '23505') return { ok: false, error: `${action}: run already exists` };
  return { ok: false, error: `${action}: ${e.message ?? String(err)}` };
}

export function createRunStore(pool: pg.Pool): RunStore {
  async function one(action: string, text: string, values: unknown[]): Promise<RunResult<RunRecord>> {
    try {
      const res = await pool.query<Row>(text, values);
      const row = res.rows[0];
      return row ? { ok: true, value: toRecord(row) } : { ok: false, error: `${action}: no such run` };
    } catch (err) {
      return failure(action, err);
    }
  }
  return {
    createRun: (run) =>
      one(
        `create run ${run.runId}`,
        `INSERT INTO colony.runs (run_id, topology, goal, repo, status, pid, host, config)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [
          run.runId,
          run.topology,
          run.goal,
          run.repo,
          run.status ?? 'running',
          run.pid ?? null,
          run.host ?? null,
          JSON.stringify(run.config ?? {}),
        ],
      ),
    setRunStatus: (runId, status) =>
      one(
        `set status of run ${runId}`,
        `UPDATE colony.runs SET status = $2,
           finished_at = CASE WHEN $2 = 'running' THEN NULL ELSE clock_timestamp() END
         WHERE run_id = $1 RETURNING ${COLUMNS}`,
        [runId, status],
      ),
    setRunOwner: (runId, pid, host) =>
      one(
        `set owner of run ${runId}`,
        `UPDATE colony.runs SET pid = $2, host = $3 WHERE run_id = $1 RETURNING ${COLUMNS}`,
        [runId, pid, host],
      ),
    async getRun(runId) {
      const res = await pool.query<Row>(`SELECT ${COLUMNS} FROM colony.runs WHERE run_id = $1`, [runId]);
      const row = res.rows[0];
      return row ? toRecord(row) : null;
    },
    async listRunning() {
      const res = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM colony.runs WHERE status = 'running' ORDER BY created_at, run_id`,
      );
      return res.rows.map(toRecord);
    },
    async listRuns(limit = 50) {
      const res = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM colony.runs ORDER BY created_at DESC, run_id DESC LIMIT $1`,
        [limit],
      );
      return res.rows.map(toRecord);
    },
  };
}
