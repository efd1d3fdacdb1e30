/**
 * Group commit for shared-context posts: posts queued in one turn of the event loop (and while a
 * flush is in flight) go to the database as one statement per run, which allocates the run's next
 * ids under the run's context_heads row lock, inserts the entries and their `context.posted` events.
 */
import type pg from 'pg';
import { err, ok, type Result } from '../lang/result.js';
import { GroupCommit } from '../store/group-commit.js';
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

interface Post {
  runId: string;
  row: EntryRow;
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
  private readonly commits: GroupCommit<Post, Inserted>;

  constructor(private readonly pool: pg.Pool) {
    this.commits = new GroupCommit({ commit: (posts) => this.commitPosts(posts), maxBatch: MAX_BATCH });
  }

  insert(runId: string, row: EntryRow): Promise<Inserted> {
    return this.commits.add({ runId, row });
  }

  /** One statement per run in the batch, the runs in parallel. */
  private async commitPosts(posts: Post[]): Promise<Result<Inserted, Error>[]> {
    const byRun = new Map<string, number[]>();
    posts.forEach((p, i) => {
      const group = byRun.get(p.runId);
      if (group) group.push(i);
      else byRun.set(p.runId, [i]);
    });
    const settled: Result<Inserted, Error>[] = new Array(posts.length);
    await Promise.all(
      [...byRun.entries()].map(async ([runId, positions]) => {
        const results = await this.insertGroup(
          runId,
          positions.map((i) => posts[i]!.row),
        );
        positions.forEach((i, k) => {
          settled[i] =
            results[k] ?? err(new Error('shared context: database returned fewer rows than inserted'));
        });
      }),
    );
    return settled;
  }

  private async insertGroup(runId: string, rows: EntryRow[]): Promise<Result<Inserted, Error>[]> {
    try {
      const inserted = await insertEntries(this.pool, runId, rows);
      return rows.map((_, i) => {
        const row = inserted[i];
        return row ? ok(row) : err(new Error('shared context: database returned fewer rows than inserted'));
      });
    } catch (cause) {
      // A data error in one row fails only that row: retry one by one.
      const code = (cause as { code?: string }).code ?? '';
      if (rows.length > 1 && (code.startsWith('22') || code.startsWith('23'))) {
        const one: Result<Inserted, Error>[] = [];
        for (const row of rows) one.push(...(await this.insertGroup(runId, [row])));
        return one;
      }
      const error = new Error(`shared context: posting failed: ${(cause as Error).message}`);
      return rows.map(() => err(error));
    }
  }
}
