/**
 * The whole task board of a run as a person sees it (the dashboard): every task in board order with
 * its predecessors and its state — done (and by whom), held (and by whom), blocked (by which
 * unfinished predecessors), busy (its scope overlaps someone's live claim) or ready. A snapshot
 * without the claims lock, like tasks_ready: claim_next decides.
 */
import type pg from 'pg';

export type BoardState = 'ready' | 'held' | 'blocked' | 'busy' | 'done' | 'dropped';

export interface BoardRow {
  id: number;
  /** Place on the board (claim_next takes the ready task of lowest rank). */
  rank: number;
  title: string;
  detail: string | null;
  scope: string;
  after: number[];
  state: BoardState;
  /** The agent holding it (held), or whose release made it done (done). */
  agent: string | null;
  /** Predecessors not done yet (blocked). */
  waitingFor: number[];
  /** Agents that released it unfinished (claim_next skips it for them). */
  failedBy: string[];
  createdBy: string;
  updatedAt: string;
}

export const MAX_BOARD_ROWS = 5000;

interface Row {
  id: string;
  rank: string;
  title: string;
  detail: string | null;
  scope: string;
  after_ids: string[];
  status: 'open' | 'done' | 'dropped';
  blocked_by: number;
  holder: string | null;
  done_by: string | null;
  free: boolean;
  waiting_for: string[] | null;
  failed_by: string[];
  created_by: string;
  updated_at: Date;
}

/** The board in order (open tasks by rank, then done ones by rank), at most `limit` rows, and the total. */
export async function readBoard(
  pool: pg.Pool,
  runId: string,
  limit = MAX_BOARD_ROWS,
): Promise<{ tasks: BoardRow[]; total: number }> {
  const n = Math.min(Math.max(1, Math.floor(limit)), MAX_BOARD_ROWS);
  const [rows, total] = await Promise.all([
    pool.query<Row>(
      `SELECT x.id, x.rank, x.title, x.detail, x.scope, x.after_ids, x.status, x.blocked_by, x.failed_by,
              x.created_by, x.updated_at, h.agent AS holder, d.agent AS done_by,
              CASE WHEN x.status = 'open' AND x.claim_id IS NULL AND x.blocked_by = 0
                   THEN colony.coord_scope_free($1, x.scope_kind, x.scope_key) ELSE true END AS free,
              CASE WHEN x.blocked_by > 0 THEN
                (SELECT array_agg(p.id ORDER BY p.id) FROM colony.tasks p
                 WHERE p.run_id = $1 AND p.id = ANY (x.after_ids) AND p.status <> 'done') END AS waiting_for
       FROM colony.tasks x
       LEFT JOIN colony.claims h ON h.id = x.claim_id AND h.ended_at IS NULL
       LEFT JOIN colony.claims d ON d.id = x.done_claim
       WHERE x.run_id = $1
       ORDER BY x.status = 'open' DESC, x.rank, x.id
       LIMIT $2`,
      [runId, n],
    ),
    pool.query<{ n: string }>('SELECT count(*) AS n FROM colony.tasks WHERE run_id = $1', [runId]),
  ]);
  return { tasks: rows.rows.map(boardRow), total: Number(total.rows[0]?.n ?? 0) };
}

function boardRow(r: Row): BoardRow {
  const state: BoardState =
    r.status === 'done'
      ? 'done'
      : r.status === 'dropped'
        ? 'dropped'
        : r.holder !== null
          ? 'held'
          : r.blocked_by > 0
            ? 'blocked'
            : r.free
              ? 'ready'
              : 'busy';
  return {
    id: Number(r.id),
    rank: Number(r.rank),
    title: r.title,
    detail: r.detail,
    scope: r.scope,
    after: r.after_ids.map(Number),
    state,
    agent: state === 'held' ? r.holder : state === 'done' ? r.done_by : null,
    waitingFor: (r.waiting_for ?? []).map(Number),
    failedBy: r.failed_by,
    createdBy: r.created_by,
    updatedAt: r.updated_at.toISOString(),
  };
}
