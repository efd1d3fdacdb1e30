/**
 * Read-only views of a run's task board: the ready tasks for an agent and the counts. Snapshots
 * without the claims lock — suggestions; claim_next is what decides (atomically). Shared by the task
 * service and by claims (a conflict suggests free tasks nearby).
 */
import type pg from 'pg';
import type { Scope } from './scope.js';

export interface BoardTask {
  id: number;
  title: string;
  detail: string | null;
  scope: string;
  after: number[];
}

/** Open tasks as one agent sees them: ready + blocked + claimed + failedByYou = open. */
export interface TaskCounts {
  total: number;
  open: number;
  /** Ready for this agent: predecessors done, scope free, not released unfinished by it before. */
  ready: number;
  /** A predecessor is not done yet. */
  blocked: number;
  /** Predecessors done, but held (or its scope overlaps a live claim). */
  claimed: number;
  /** Ready, but this agent released it before without finishing (claim_next skips it for you). */
  failedByYou: number;
  done: number;
  dropped: number;
}

export async function readyTasks(
  pool: pg.Pool,
  runId: string,
  agent: string,
  options: { limit: number; near?: Scope },
): Promise<BoardTask[]> {
  const near = options.near?.kind === 'path' ? options.near.key : null;
  const res = await pool.query<{
    id: string;
    title: string;
    detail: string | null;
    scope: string;
    after_ids: string[];
  }>('SELECT * FROM colony.coord_tasks_ready($1, $2, $3, $4)', [runId, agent, near, options.limit]);
  return res.rows.map(boardTask);
}

export async function taskCounts(pool: pg.Pool, runId: string, agent: string): Promise<TaskCounts> {
  const res = await pool.query<Record<string, string>>('SELECT * FROM colony.coord_task_counts($1, $2)', [
    runId,
    agent,
  ]);
  const row = res.rows[0] ?? {};
  const n = (column: string) => Number(row[column] ?? 0);
  return {
    total: n('n_total'),
    open: n('n_open'),
    ready: n('n_ready'),
    blocked: n('n_blocked'),
    claimed: n('n_claimed'),
    failedByYou: n('n_failed_by_you'),
    done: n('n_done'),
    dropped: n('n_dropped'),
  };
}

export function boardTask(row: {
  id: string;
  title: string;
  detail: string | null;
  scope: string;
  after_ids?: string[] | null;
}): BoardTask {
  return {
    id: Number(row.id),
    title: row.title,
    detail: row.detail,
    scope: row.scope,
    after: (row.after_ids ?? []).map(Number),
  };
}
