/**
 * Group commit for shared-context posts: posts queued in one turn of the event loop (and while a
 * flush is in flight) go to the database as one statement per run, which allocates the run's next
 * ids under the run's context_heads row lock, inserts the entries and their `context.posted` events.
 */
import type pg from 'pg';
import { isoText } from './sql.js';
import type { ContextKind } from './types.js';

export interface EntryRow {
  author: string;
  kind: ContextKind;
  summary: string;
  detail: string | null;
  scope: string[] | null;
}

export interface Inserted {
  id: number;
  createdAt: string;
}

interface Pending {
  runId: string;
  row: EntryRow;
  resolve(value: Inserted): void;
  reject(err: Error): void;
}

const MAX_BATCH = 1000;

// $1 run, $2 JSON array of rows, $3 row count. ids are base+1..base+n in array order.
export const INSERT_ENTRIES_SQL = `
WITH input AS (
  SELECT t.i, e->>'author' AS author, e->>'kind' AS kind, e->>'summary' AS summary, e->>'detail' AS detail,
         CASE WHEN jsonb_typeof(e->'scope') = 'array'
              THEN ARRAY(SELECT jsonb_array_elements_text(e->'scope')) END AS scope
  FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(e, i)
),
head AS (
  INSERT INTO colony.context_heads AS h (run_id, last_id) VALUES ($1, $3::bigint)
  ON CONFLICT (run_id) DO UPDATE SET last_id = h.last_id + $3::bigint
  RETURNING h.last_id - $3::bigint AS base
),
entries AS (
  INSERT INTO colony.context_entries (run_id, id, author, kind, summary, detail, scope)
  SELECT $1, head.base + input.i, input.author, input.kind, input.summary, input.detail, input.scope
  FROM head, input
  RETURNING id, author, kind, summary, scope, detail IS NOT NULL AS has_detail, created_at
),
events AS (
  INSERT INTO colony.events (run_id, agent, kind, data)
  SELECT $1, author, 'context.posted', jsonb_build_object(
    'id', id, 'kind', kind, 'summary', summary, 'scope', to_jsonb(scope), 'hasDetail', has_detail)
  FROM entries ORDER BY id
)
SELECT id, ${isoText('created_at')} AS created_at FROM entries ORDER BY id`;

export async function insertEntries(
  db: pg.Pool | pg.PoolClient,
  runId: string,
  rows: EntryRow[],
): Promise<Inserted[]> {
  const res = await db.query<{ id: string; created_at: string }>(INSERT_ENTRIES_SQL, [
    runId,
    JSON.stringify(rows),
    rows.length,
  ]);
  return res.rows.map((r) => ({ id: Number(r.id), createdAt: r.created_at }));
}

export class ContextBatcher {
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;

  constructor(private readonly pool: pg.Pool) {}

  insert(runId: string, row: EntryRow): Promise<Inserted> {
    return new Promise<Inserted>((resolve, reject) => {
      this.queue.push({ runId, row, resolve, reject });
      if (this.scheduled || this.flushing) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.drain();
      });
    });
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const byRun = new Map<string, Pending[]>();
      for (const p of batch) {
        const group = byRun.get(p.runId);
        if (group) group.push(p);
        else byRun.set(p.runId, [p]);
      }
      await Promise.all([...byRun.entries()].map(([runId, group]) => this.insertGroup(runId, group)));
    }
    this.flushing = false;
  }

  private async insertGroup(runId: string, group: Pending[]): Promise<void> {
    try {
      const inserted = await insertEntries(
        this.pool,
        runId,
        group.map((p) => p.row),
      );
      group.forEach((p, i) => {
        const row = inserted[i];
        if (row) p.resolve(row);
        else p.reject(new Error('shared context: database returned fewer rows than inserted'));
      });
    } catch (err) {
      // A data error in one row fails only that row: retry one by one.
      const code = (err as { code?: string }).code ?? '';
      if (group.length > 1 && (code.startsWith('22') || code.startsWith('23'))) {
        for (const p of group) await this.insertGroup(runId, [p]);
        return;
      }
      const error = new Error(`shared context: posting failed: ${(err as Error).message}`);
      for (const p of group) p.reject(error);
    }
  }
}
