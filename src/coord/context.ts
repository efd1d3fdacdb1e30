/**
 * The shared context: an append-only notebook per run (OBSERVED, FACT, FAIL, CLAIM, PATCH entries).
 * Posts are group-committed; each agent reads with its own cursor (a low-water mark plus read marks
 * above it), so a read costs in proportion to the entries this agent has not read, not to the log.
 */
import type pg from 'pg';
import { ContextBatcher, type EntryRow } from './context-batch.js';
import { type GrepQuery, parseGrep } from './grep.js';
import { parseScope } from './scope.js';
import { errorText, inTransaction, isoText } from './sql.js';
import { CONTEXT_KINDS, type ContextKind, type Result } from './types.js';

export const MAX_SUMMARY_CHARS = 200;
export const MAX_DETAIL_CHARS = 100_000;
export const MAX_SCOPE_ITEMS = 50;
export const DEFAULT_READ_LIMIT = 50;
export const MAX_READ_LIMIT = 10_000;

export interface ContextEntry {
  id: number;
  runId: string;
  author: string;
  kind: ContextKind;
  summary: string;
  detail: string | null;
  scope: string[] | null;
  createdAt: string;
}

/** What a read returns per entry: the gist, not the detail (context_unfold gives that). */
export type ContextGist = Pick<ContextEntry, 'id' | 'kind' | 'author' | 'summary' | 'scope' | 'createdAt'> & {
  hasDetail: boolean;
};

export interface PostInput {
  runId: string;
  author: string;
  kind: ContextKind;
  summary: string;
  detail?: string | null;
  scope?: string[] | null;
}

export interface ReadOptions {
  kinds?: ContextKind[];
  /** Terms joined by `&` (and) and `,` (or); see grep.ts. */
  grep?: string;
  limit?: number;
}

export interface ReadResult {
  entries: ContextGist[];
  /** Unread entries matching the filters that were not returned (the next read returns them). */
  remaining: number;
  /** All unread entries of this agent after this read, filters ignored. */
  unreadTotal: number;
}

/** Checks a post; returns the row to insert or the reason it is refused. */
export function validatePost(input: PostInput): Result<EntryRow> {
  if (!CONTEXT_KINDS.includes(input.kind)) {
    return {
      ok: false,
      error: `kind must be one of ${CONTEXT_KINDS.join(', ')} (got ${String(input.kind)})`,
    };
  }
  const summary = input.summary.trim();
  const chars = [...summary].length;
  if (chars === 0) return { ok: false, error: 'summary is empty' };
  if (chars > MAX_SUMMARY_CHARS) {
    return {
      ok: false,
      error: `summary is ${chars} characters; the limit is ${MAX_SUMMARY_CHARS}. Shorten it and put the rest in detail.`,
    };
  }
  const detail = input.detail == null || input.detail === '' ? null : input.detail;
  if (detail !== null && detail.length > MAX_DETAIL_CHARS) {
    return { ok: false, error: `detail is ${detail.length} characters; the limit is ${MAX_DETAIL_CHARS}` };
  }
  let scope: string[] | null = null;
  if (input.scope && input.scope.length > 0) {
    if (input.scope.length > MAX_SCOPE_ITEMS) {
      return { ok: false, error: `scope has ${input.scope.length} items; the limit is ${MAX_SCOPE_ITEMS}` };
    }
    scope = [];
    for (const raw of input.scope) {
      const parsed = parseScope(raw);
      if (!parsed.ok) return parsed;
      scope.push(parsed.value.text);
    }
  }
  if (input.author.trim() === '') return { ok: false, error: 'author is empty' };
  return { ok: true, value: { author: input.author, kind: input.kind, summary, detail, scope } };
}

// $1 run, $2 agent, $3 low, $4 kinds (null = all), $5 grep groups (null = none), $6 limit.
const READ_SQL = `
WITH unread AS (
  SELECT e.id, e.kind, e.author, e.summary, e.scope, e.detail, e.created_at
  FROM colony.context_entries e
  WHERE e.run_id = $1 AND e.id > $3
    AND NOT EXISTS (SELECT 1 FROM colony.context_reads r
                    WHERE r.run_id = $1 AND r.agent = $2 AND r.entry_id = e.id)
),
matched AS (
  SELECT * FROM unread u
  WHERE ($4::text[] IS NULL OR u.kind = ANY($4::text[]))
    AND ($5::jsonb IS NULL OR NOT EXISTS (
      SELECT 1 FROM jsonb_array_elements($5::jsonb) g
      WHERE NOT EXISTS (
        SELECT 1 FROM jsonb_array_elements_text(g) t
        WHERE strpos(lower(u.summary || E'\\n' || coalesce(u.detail, '')), lower(t)) > 0)))
),
picked AS (
  SELECT * FROM matched ORDER BY (kind = 'FAIL') DESC, id LIMIT $6
),
bounds AS (
  SELECT coalesce(
    (SELECT min(u.id) - 1 FROM unread u WHERE u.id NOT IN (SELECT id FROM picked)),
    (SELECT max(id) FROM colony.context_entries WHERE run_id = $1),
    $3::bigint) AS low
),
moved AS (
  UPDATE colony.context_cursors c SET low = b.low FROM bounds b
  WHERE c.run_id = $1 AND c.agent = $2 AND b.low <> $3
),
forgotten AS (
  DELETE FROM colony.context_reads r USING bounds b
  WHERE r.run_id = $1 AND r.agent = $2 AND r.entry_id > $3 AND r.entry_id <= b.low
),
marked AS (
  INSERT INTO colony.context_reads (run_id, agent, entry_id)
  SELECT $1, $2, p.id FROM picked p, bounds b WHERE p.id > b.low
)
SELECT p.id, p.kind, p.author, p.summary, p.scope, p.detail IS NOT NULL AS has_detail,
       ${isoText('p.created_at')} AS created_at,
       (SELECT count(*) FROM matched) - (SELECT count(*) FROM picked) AS remaining,
       (SELECT count(*) FROM unread) - (SELECT count(*) FROM picked) AS unread_total
FROM (SELECT 1) one LEFT JOIN picked p ON true
ORDER BY (p.kind = 'FAIL') DESC, p.id`;

interface ReadRow {
  id: string | null;
  kind: ContextKind;
  author: string;
  summary: string;
  scope: string[] | null;
  has_detail: boolean;
  created_at: string;
  remaining: string;
  unread_total: string;
}

export class ContextService {
  private readonly batcher: ContextBatcher;

  constructor(private readonly pool: pg.Pool) {
    this.batcher = new ContextBatcher(pool);
  }

  /** Appends an entry (and its `context.posted` event). Group-committed with concurrent posts. */
  async post(input: PostInput): Promise<Result<ContextEntry>> {
    const valid = validatePost(input);
    if (!valid.ok) return valid;
    try {
      const inserted = await this.batcher.insert(input.runId, valid.value);
      return { ok: true, value: { runId: input.runId, ...valid.value, ...inserted } };
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
  }

  /**
   * Up to `limit` entries this agent has not been shown — FAIL entries first, then oldest first —
   * marking only those as read.
   */
  async read(runId: string, agent: string, options: ReadOptions = {}): Promise<Result<ReadResult>> {
    const limit = options.limit ?? DEFAULT_READ_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_READ_LIMIT) {
      return { ok: false, error: `limit must be an integer from 1 to ${MAX_READ_LIMIT}` };
    }
    for (const kind of options.kinds ?? []) {
      if (!CONTEXT_KINDS.includes(kind)) {
        return { ok: false, error: `unknown kind ${String(kind)}; kinds are ${CONTEXT_KINDS.join(', ')}` };
      }
    }
    let grep: GrepQuery | null = null;
    if (options.grep !== undefined && options.grep.trim() !== '') {
      const parsed = parseGrep(options.grep);
      if (!parsed.ok) return parsed;
      grep = parsed.value;
    }
    const kinds = options.kinds && options.kinds.length > 0 ? options.kinds : null;
    try {
      const rows = await inTransaction(
        this.pool,
        async (client) => {
          // Takes the agent's cursor row lock, so two reads by one agent cannot return the same entries.
          const cursor = await client.query<{ low: string }>(
            `INSERT INTO colony.context_cursors AS c (run_id, agent) VALUES ($1, $2)
           ON CONFLICT (run_id, agent) DO UPDATE SET low = c.low RETURNING low`,
            [runId, agent],
          );
          const low = cursor.rows[0]?.low ?? '0';
          const res = await client.query<ReadRow>(READ_SQL, [
            runId,
            agent,
            low,
            kinds,
            grep ? JSON.stringify(grep) : null,
            limit,
          ]);
          return res.rows;
        },
        { asyncCommit: true },
      );
      const first = rows[0];
      return {
        ok: true,
        value: {
          entries: rows
            .filter((r) => r.id !== null)
            .map((r) => ({
              id: Number(r.id),
              kind: r.kind,
              author: r.author,
              summary: r.summary,
              scope: r.scope,
              hasDetail: r.has_detail,
              createdAt: r.created_at,
            })),
          remaining: Number(first?.remaining ?? 0),
          unreadTotal: Number(first?.unread_total ?? 0),
        },
      };
    } catch (err) {
      return { ok: false, error: `shared context: read failed: ${errorText(err)}` };
    }
  }

  /** The full entry, detail included. */
  async unfold(runId: string, id: number): Promise<Result<ContextEntry>> {
    try {
      const res = await this.pool.query<{
        id: string;
        author: string;
        kind: ContextKind;
        summary: string;
        detail: string | null;
        scope: string[] | null;
        created_at: string;
      }>(
        `SELECT id, author, kind, summary, detail, scope, ${isoText('created_at')} AS created_at
         FROM colony.context_entries WHERE run_id = $1 AND id = $2`,
        [runId, id],
      );
      const row = res.rows[0];
      if (!row) return { ok: false, error: `no shared-context entry #${id} in this run` };
      return {
        ok: true,
        value: {
          runId,
          id: Number(row.id),
          author: row.author,
          kind: row.kind,
          summary: row.summary,
          detail: row.detail,
          scope: row.scope,
          createdAt: row.created_at,
        },
      };
    } catch (err) {
      return { ok: false, error: `shared context: unfold failed: ${errorText(err)}` };
    }
  }
}
