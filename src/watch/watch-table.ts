/**
 * The durable record of `colony watch` (migration 008, colony.watch_issues): which issue became which
 * run. A row is written before its run is started, with the id the run will have, so a watch killed
 * anywhere and started again knows every issue it took and never takes one twice.
 */
import type pg from 'pg';

/** One forge repository as the table keys it: the API base and the repository's path there. */
export interface WatchedRepo {
  apiBase: string;
  repo: string;
  forge: string;
}

export interface TakenIssue {
  issue: number;
  runId: string;
  /** The run's goal, kept so a run whose start was cut short by a kill is started with the same goal. */
  goal: string;
  startedCommented: boolean;
  outcome: string | null;
  finished: boolean;
}

interface Row {
  issue: number;
  run_id: string;
  goal: string;
  started_commented: boolean;
  outcome: string | null;
  finished: boolean;
}

const COLUMNS = 'issue, run_id, goal, started_commented, outcome, finished_at IS NOT NULL AS finished';

function toTaken(row: Row): TakenIssue {
  return {
    issue: row.issue,
    runId: row.run_id,
    goal: row.goal,
    startedCommented: row.started_commented,
    outcome: row.outcome,
    finished: row.finished,
  };
}

export interface WatchTable {
  /** Every issue of the repository ever taken (finished or not). */
  all(): Promise<TakenIssue[]>;
  /**
   * Takes `issue` for `runId`; null when it was taken before (by this or another watch): the row's
   * key decides, so two watches racing for one issue start one run.
   */
  take(issue: number, runId: string, goal: string): Promise<TakenIssue | null>;
  markStartCommented(issue: number): Promise<void>;
  finish(issue: number, outcome: string): Promise<void>;
  /** Gives an issue back: only for a run that provably never started (its `colony run` failed first). */
  release(issue: number, runId: string): Promise<void>;
}

export function watchTable(pool: pg.Pool, where: WatchedRepo): WatchTable {
  const key = [where.apiBase, where.repo];
  return {
    async all() {
      const res = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM colony.watch_issues WHERE api_base = $1 AND repo = $2 ORDER BY issue`,
        key,
      );
      return res.rows.map(toTaken);
    },
    async take(issue, runId, goal) {
      const res = await pool.query<Row>(
        `INSERT INTO colony.watch_issues (api_base, repo, issue, forge, run_id, goal)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
        [...key, issue, where.forge, runId, goal],
      );
      const row = res.rows[0];
      return row ? toTaken(row) : null;
    },
    async markStartCommented(issue) {
      await pool.query(
        `UPDATE colony.watch_issues SET started_commented = true
         WHERE api_base = $1 AND repo = $2 AND issue = $3`,
        [...key, issue],
      );
    },
    async finish(issue, outcome) {
      await pool.query(
        `UPDATE colony.watch_issues SET outcome = $4, finished_at = now()
         WHERE api_base = $1 AND repo = $2 AND issue = $3`,
        [...key, issue, outcome],
      );
    },
    async release(issue, runId) {
      await pool.query(
        `DELETE FROM colony.watch_issues WHERE api_base = $1 AND repo = $2 AND issue = $3 AND run_id = $4`,
        [...key, issue, runId],
      );
    },
  };
}
