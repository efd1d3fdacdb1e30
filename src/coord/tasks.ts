/**
 * The task board: tasks with predecessors on top of claims (docs/coordination.md § Task board).
 * `claimNext` grants the first ready task in board order (rank, then id) through coord_claim, inside the run's claims lock, so
 * a task is granted to exactly one agent; calls of one run are group-committed like claims (one
 * statement, one transaction, coord_claim_next once per caller, in order). A task is done when the
 * claim on its scope is released with a done outcome (outcome.ts); otherwise it stays open.
 */
import type pg from 'pg';
import { KeyedGroupCommit } from '../store/group-commit.js';
import { errorText } from './sql.js';
import { type BoardRow, readBoard } from './task-board.js';
import { type TaskEdit, type TaskInput, validateTaskEdit, validateTasks } from './task-input.js';
import { type BoardTask, readyTasks, type TaskCounts, taskCounts } from './task-queries.js';
import type { Result } from './types.js';

export const DEFAULT_READY_LIMIT = 20;
export const MAX_READY_LIMIT = 1000;

export interface AddedTask {
  /** Position in the call (0-based). */
  index: number;
  id: number;
  key: string;
  title: string;
  /** True when a task with this key already existed (it was not added again). */
  existing: boolean;
}

/**
 * An edit's outcome: `ok` (changed, logged), `unchanged` (it already was so), or refused — `not_found`,
 * `closed` (done or dropped), `held` (title, detail or scope of a task someone holds), `bad` (a place
 * next to a task that does not exist, or itself) — with the message saying why.
 */
export interface TaskEditOutcome {
  outcome: 'ok' | 'unchanged' | 'not_found' | 'closed' | 'held' | 'bad';
  message: string;
}

export type ClaimNextOutcome =
  | {
      status: 'granted';
      task: BoardTask;
      claimId: number;
      /** True when this agent already held the task (its lease was renewed); no new claim. */
      existing: boolean;
      /** The CLAIM context entry (null when `existing`). */
      entryId: number | null;
      leaseMs: number;
    }
  | { status: 'none'; counts: TaskCounts };

interface NextRow {
  status: 'granted' | 'existing' | 'none';
  task_id: string | null;
  title: string | null;
  detail: string | null;
  scope: string | null;
  claim_id: string | null;
  entry_id: string | null;
}

export class TaskService {
  private readonly next: KeyedGroupCommit<{ agent: string; leaseMs: number }, NextRow>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly leaseMs: number,
  ) {
    this.next = new KeyedGroupCommit((runId, items) => claimNextBatch(pool, runId, items));
  }

  /**
   * Adds tasks in order; a key that exists is reported as existing. All or nothing otherwise.
   * `adder`: an agent's name, or `{person}` (the dashboard's `user`): its task.added has no agent.
   */
  async add(
    runId: string,
    adder: string | { person: string },
    tasks: readonly TaskInput[],
  ): Promise<Result<AddedTask[]>> {
    const rows = validateTasks(tasks);
    if (!rows.ok) return rows;
    const [agent, by] = typeof adder === 'string' ? [adder, null] : [null, adder.person];
    try {
      const res = await this.pool.query<{ i: number; id: string; existing: boolean }>(
        'SELECT i, id, existing FROM colony.coord_tasks_add($1, $2, $3::jsonb, $4) ORDER BY i',
        [runId, agent, JSON.stringify(rows.value), by],
      );
      return {
        ok: true,
        value: res.rows.map((r) => {
          const row = rows.value[r.i - 1];
          return {
            index: r.i - 1,
            id: Number(r.id),
            key: row?.key ?? '',
            title: row?.title ?? '',
            existing: r.existing,
          };
        }),
      };
    } catch (err) {
      // P0001: the function's own refusal (unknown predecessor), worded for the model.
      if ((err as { code?: string }).code === 'P0001') return { ok: false, error: errorText(err) };
      return { ok: false, error: `tasks: ${errorText(err)}` };
    }
  }

  /**
   * A person (`by`) edits an open task: title, detail, scope (not while someone holds it) or its
   * place on the board (held or not). A done task cannot change. Logged as task.edited (no agent).
   */
  async edit(runId: string, id: number, by: string, edit: TaskEdit): Promise<Result<TaskEditOutcome>> {
    const row = validateTaskEdit(edit);
    if (!row.ok) return { ok: false, error: row.error };
    try {
      const res = await this.pool.query<{ outcome: TaskEditOutcome['outcome']; message: string }>(
        'SELECT outcome, message FROM colony.coord_task_edit($1, $2, $3, $4::jsonb)',
        [runId, id, by, JSON.stringify(row.value)],
      );
      const first = res.rows[0];
      if (!first) return { ok: false, error: `tasks: no answer editing task ${id}` };
      return { ok: true, value: first };
    } catch (err) {
      return { ok: false, error: `tasks: ${errorText(err)}` };
    }
  }

  /** Every task of the run in board order, with its state (a snapshot), and how many there are. */
  async board(runId: string, limit?: number): Promise<Result<{ tasks: BoardRow[]; total: number }>> {
    try {
      return { ok: true, value: await readBoard(this.pool, runId, limit) };
    } catch (err) {
      return { ok: false, error: `tasks: ${errorText(err)}` };
    }
  }

  /** Ready tasks for this agent (board order) and the board's counts. */
  async ready(
    runId: string,
    agent: string,
    limit = DEFAULT_READY_LIMIT,
  ): Promise<Result<{ tasks: BoardTask[]; counts: TaskCounts }>> {
    const n = Math.min(Math.max(1, Math.floor(limit)), MAX_READY_LIMIT);
    try {
      const [tasks, counts] = await Promise.all([
        readyTasks(this.pool, runId, agent, { limit: n }),
        taskCounts(this.pool, runId, agent),
      ]);
      return { ok: true, value: { tasks, counts } };
    } catch (err) {
      return { ok: false, error: `tasks: ${errorText(err)}` };
    }
  }

  async counts(runId: string, agent: string): Promise<Result<TaskCounts>> {
    try {
      return { ok: true, value: await taskCounts(this.pool, runId, agent) };
    } catch (err) {
      return { ok: false, error: `tasks: ${errorText(err)}` };
    }
  }

  /** Claims the next ready task for the agent (atomic), or says why there is none. */
  async claimNext(runId: string, agent: string): Promise<Result<ClaimNextOutcome>> {
    try {
      const row = await this.next.add(runId, { agent, leaseMs: this.leaseMs });
      if (row.status === 'none' || row.task_id === null || row.claim_id === null) {
        return { ok: true, value: { status: 'none', counts: await taskCounts(this.pool, runId, agent) } };
      }
      return {
        ok: true,
        value: {
          status: 'granted',
          task: {
            id: Number(row.task_id),
            title: row.title ?? '',
            detail: row.detail,
            scope: row.scope ?? '',
            after: [],
          },
          claimId: Number(row.claim_id),
          existing: row.status === 'existing',
          entryId: row.entry_id === null ? null : Number(row.entry_id),
          leaseMs: this.leaseMs,
        },
      };
    } catch (err) {
      return { ok: false, error: `tasks: ${errorText(err)}` };
    }
  }
}

/** claim_next calls of one run in one statement (coord_claim_next per call, in order; one commit). */
async function claimNextBatch(
  pool: pg.Pool,
  runId: string,
  items: { agent: string; leaseMs: number }[],
): Promise<NextRow[]> {
  const res = await pool.query<NextRow & { i: string }>(
    `SELECT e.i, r.* FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(x, i)
     CROSS JOIN LATERAL colony.coord_claim_next($1, e.x->>'agent', (e.x->>'leaseMs')::integer) r
     ORDER BY e.i`,
    [runId, JSON.stringify(items)],
  );
  return res.rows;
}
