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

/** A ready, unheld task with what `nearestTasks` needs to pick for one agent. */
export interface FreeTask extends BoardTask {
  scopeKind: Scope['kind'];
  scopeKey: string;
  failedBy: string[];
}

export const MAX_FREE_SCAN = 500;

/** Ready tasks nobody holds (for any agent), in board order: one query serves a batch of conflicts. */
export async function freeTasks(pool: pg.Pool, runId: string, limit = MAX_FREE_SCAN): Promise<FreeTask[]> {
  const res = await pool.query<{
    id: string;
    title: string;
    detail: string | null;
    scope: string;
    after_ids: string[];
    scope_kind: Scope['kind'];
    scope_key: string;
    failed_by: string[];
  }>(
    `SELECT x.id, x.title, x.detail, x.scope, x.after_ids, x.scope_kind, x.scope_key, x.failed_by
     FROM colony.tasks x
     WHERE x.run_id = $1 AND x.status = 'open' AND x.claim_id IS NULL AND x.blocked_by = 0
       AND colony.coord_scope_free($1, x.scope_kind, x.scope_key)
     ORDER BY x.rank, x.id LIMIT $2`,
    [runId, limit],
  );
  return res.rows.map((r) => ({
    ...boardTask(r),
    scopeKind: r.scope_kind,
    scopeKey: r.scope_key,
    failedBy: r.failed_by,
  }));
}

/**
 * Up to `n` of the free tasks for one agent (not those it released unfinished), those sharing the
 * longest ancestor folder with `near` first, then in board order (`tasks` come in it, from freeTasks)
 * — as colony.coord_tasks_ready orders them.
 */
export function nearestTasks(tasks: readonly FreeTask[], agent: string, near: Scope, n: number): BoardTask[] {
  const shared = (task: FreeTask) =>
    near.kind === 'path' && task.scopeKind === 'path' ? sharedPrefix(task.scopeKey, near.key) : 0;
  return tasks
    .filter((t) => !t.failedBy.includes(agent))
    .map((t, order) => ({ t, score: shared(t), order }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, n)
    .map(({ t }) => ({ id: t.id, title: t.title, detail: t.detail, scope: t.scope, after: t.after }));
}

/** Length of the longest common ancestor folder key of two path keys (keys end with '/'). */
function sharedPrefix(a: string, b: string): number {
  let last = 0;
  for (let i = 0; i < a.length && i < b.length && a[i] === b[i]; i++) if (a[i] === '/') last = i + 1;
  return last;
}
