import type pg from 'pg';
import type { EventInput, EventKind, StoredEvent } from '../core/events.js';
import { err, ok, type Result } from '../lang/result.js';
import { GroupCommit } from './group-commit.js';
import { prepared } from './prepared.js';
import type { ChainBreak, EventLog, ReadOptions, VerifyResult } from './types.js';

/** Most rows in one INSERT statement. */
const MAX_BATCH = 1000;

export interface EventLogStats {
  /** INSERT statements sent (group commits). */
  flushes: number;
  /** Events committed. */
  events: number;
}

const TS_TEXT = `to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

// One statement for any batch size: the batch travels as one JSON array parameter, so Node does a
// single JSON.stringify and Postgres parses it once. WITH ORDINALITY + ORDER BY keeps array order,
// which is the order the trigger assigns sequence numbers in.
const INSERT_SQL = `INSERT INTO colony.events (run_id, agent, kind, data)
SELECT e->>0, e->>1, e->>2, e->3 FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(e, i) ORDER BY i
RETURNING seq, ${TS_TEXT}, hash, prev_hash`;

/**
 * `data` without the bulky fields a fold never looks at (tool output, system prompts and tasks,
 * verify/merge output beyond 4,000 characters): a 100k-event run of real agents is mostly tool
 * output, and parsing it is most of the cost of the dashboard's first view.
 */
const SLIM_DATA = `CASE kind
    WHEN 'tool.finished' THEN data - 'content'
    WHEN 'agent.started' THEN data - 'system' - 'task'
    WHEN 'setup.finished' THEN data - 'output'
    WHEN 'merge.rejected' THEN jsonb_set(data, '{output}', to_jsonb(left(data->>'output', 4000)))
    WHEN 'verify.finished' THEN jsonb_set(data, '{output}', to_jsonb(left(data->>'output', 4000)))
    ELSE data
  END`;

/**
 * Postgres jsonb rejects \u0000 and unpaired surrogates (which JSON.stringify writes as \udXXX
 * escapes). Replace them with U+FFFD so one odd tool output cannot fail a whole batch.
 */
export function jsonForPostgres(json: string): string {
  // JSON.stringify writes \u escapes only for control characters and lone surrogates: usually none.
  if (!json.includes('\\u')) return json;
  return json.replace(/(\\+)u(0000|d[89a-f][0-9a-f]{2})/g, (match: string, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes.slice(0, -1)}\\ufffd` : match,
  );
}

/**
 * Stable grouping by run, as positions into `events`: order only matters within a run, and
 * consecutive rows of one run let the insert trigger continue from its cached head instead of taking
 * the head row again. Runs go in sorted order so that two processes always lock run heads in the same
 * order (no deadlock).
 */
function orderByRun(events: readonly EventInput[]): number[] {
  const first = events[0]?.runId;
  const positions = events.map((_, i) => i);
  if (events.every((e) => e.runId === first)) return positions;
  const groups = new Map<string, number[]>();
  for (const i of positions) {
    const runId = events[i]!.runId;
    const group = groups.get(runId);
    if (group) group.push(i);
    else groups.set(runId, [i]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).flatMap(([, group]) => group);
}

function batchError(count: number, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  return new Error(`event log: committing ${count} event(s) failed: ${message}`);
}

/**
 * The Postgres event log with group commit: `append` queues; one flusher at a time sends everything
 * queued as a single multi-row INSERT, and events appended while it is in flight form the next one.
 * A single flusher keeps each caller's events in append order (and so in increasing seq).
 */
export class PgEventLog implements EventLog {
  readonly stats: EventLogStats = { flushes: 0, events: 0 };
  private readonly commits = new GroupCommit<EventInput, StoredEvent>({
    commit: (events) => this.insert(events),
    maxBatch: MAX_BATCH,
  });

  constructor(private readonly pool: pg.Pool) {}

  append<K extends EventKind>(event: EventInput<K>): Promise<StoredEvent<K>> {
    return this.commits.add(event) as Promise<StoredEvent<K>>;
  }

  appendMany(events: EventInput[]): Promise<StoredEvent[]> {
    return Promise.all(events.map((event) => this.append(event)));
  }

  flush(): Promise<void> {
    return this.commits.idle();
  }

  private async insert(events: EventInput[]): Promise<Result<StoredEvent, Error>[]> {
    const order = orderByRun(events);
    const rows = order.map((i) => {
      const e = events[i]!;
      return [e.runId, e.agent, e.kind, e.data];
    });
    let result: pg.QueryResult<unknown[]>;
    try {
      result = await this.pool.query<unknown[]>({
        text: INSERT_SQL,
        values: [jsonForPostgres(JSON.stringify(rows))],
        rowMode: 'array',
      });
    } catch (cause) {
      // A data error in one event (e.g. data that is not JSON-serialisable into jsonb) should only fail
      // that event: retry the batch row by row. Other errors (connection, permissions) fail them all.
      const code = (cause as { code?: string }).code ?? '';
      if (events.length > 1 && code.startsWith('22')) {
        const one: Result<StoredEvent, Error>[] = [];
        for (const event of events) one.push(...(await this.insert([event])));
        return one;
      }
      const error = batchError(events.length, cause);
      return events.map(() => err(error));
    }
    this.stats.flushes++;
    this.stats.events += events.length;
    const settled: Result<StoredEvent, Error>[] = events.map(() =>
      err(new Error('event log: database returned fewer rows than inserted')),
    );
    order.forEach((i, position) => {
      const row = result.rows[position];
      if (row)
        settled[i] = ok({
          ...events[i]!,
          seq: Number(row[0]),
          ts: row[1] as string,
          hash: row[2] as string,
          prevHash: row[3] as string,
        } as StoredEvent);
    });
    return settled;
  }

  async read<K extends EventKind = EventKind>(
    runId: string,
    options: ReadOptions<K> = {},
  ): Promise<StoredEvent<K>[]> {
    const where = ['run_id = $1', 'seq > $2'];
    const values: unknown[] = [runId, options.afterSeq ?? 0];
    if (options.agent !== undefined) {
      values.push(options.agent);
      where.push(`agent = $${values.length}`);
    }
    if (options.kinds && options.kinds.length > 0) {
      values.push(options.kinds);
      where.push(`kind = ANY($${values.length}::text[])`);
    }
    let limit = '';
    if (options.limit !== undefined) {
      values.push(options.limit);
      limit = `LIMIT $${values.length}`;
    }
    // A handful of shapes (agent, kinds, limit, slim), each planned once per connection.
    const res = await this.pool.query<unknown[]>({
      ...prepared(
        `SELECT seq, ${TS_TEXT}, agent, kind, ${options.slim ? SLIM_DATA : 'data'}, hash, prev_hash FROM colony.events
             WHERE ${where.join(' AND ')} ORDER BY seq ${limit}`,
      ),
      values,
      rowMode: 'array',
    });
    return res.rows.map(
      (r) =>
        ({
          runId,
          seq: Number(r[0]),
          ts: r[1] as string,
          agent: (r[2] as string | null) ?? null,
          kind: r[3] as EventKind,
          data: r[4],
          hash: r[5] as string,
          prevHash: r[6] as string,
        }) as StoredEvent<K>,
    );
  }

  /**
   * Recomputes every row's hash in SQL and walks the chain in seq order; reports the first row whose
   * hash does not match its content, whose prev_hash is not the previous row's hash, or whose seq
   * leaves a gap (including rows missing at the end, detected against run_heads).
   */
  async verify(runId: string): Promise<VerifyResult> {
    const res = await this.pool.query<{ seq: string; reason: ChainBreak['reason'] | null; total: string }>(
      `WITH chain AS (
         SELECT seq, hash, prev_hash,
                colony.event_hash(prev_hash, run_id, seq, agent, kind, ts, data) AS computed,
                lag(hash) OVER w AS before_hash, lag(seq) OVER w AS before_seq
         FROM colony.events WHERE run_id = $1 WINDOW w AS (ORDER BY seq)
       ),
       breaks AS (
         SELECT seq, CASE
             WHEN seq <> coalesce(before_seq, 0) + 1 THEN 'sequence_gap'
             WHEN prev_hash <> coalesce(before_hash, repeat('0', 64)) THEN 'prev_hash_mismatch'
             WHEN hash <> computed THEN 'hash_mismatch' END AS reason
         FROM chain
       ),
       tail AS (
         SELECT h.last_seq + 0 AS last_seq FROM colony.run_heads h WHERE h.run_id = $1
       )
       SELECT (SELECT count(*) FROM chain) AS total, b.seq, b.reason
       FROM (SELECT seq, reason FROM breaks WHERE reason IS NOT NULL
             UNION ALL
             SELECT coalesce((SELECT max(seq) FROM chain), 0) + 1, 'sequence_gap'
             FROM tail WHERE tail.last_seq > coalesce((SELECT max(seq) FROM chain), 0)
             ORDER BY seq LIMIT 1) b
       RIGHT JOIN (SELECT 1) one ON true`,
      [runId],
    );
    const row = res.rows[0];
    const events = Number(row?.total ?? 0);
    const firstBreak: ChainBreak | null = row?.reason ? { seq: Number(row.seq), reason: row.reason } : null;
    return { runId, events, ok: firstBreak === null, firstBreak };
  }
}
