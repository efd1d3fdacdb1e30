/**
 * Reads a run's events for the server's fold, without the bulky fields the fold never looks at
 * (tool output, system prompts and tasks, verify/merge output): a 100k-event run of real agents is
 * mostly tool output, and parsing it is most of the cost of the first view. Events read here are
 * for folding only; the API's /events and the SSE stream serve the full events from the EventLog.
 */
import type pg from 'pg';
import type { EventKind, StoredEvent } from '../core/events.js';

const SQL = `
  SELECT seq, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ts, agent, kind,
         CASE kind
           WHEN 'tool.finished' THEN data - 'content'
           WHEN 'agent.started' THEN data - 'system' - 'task'
           WHEN 'setup.finished' THEN data - 'output'
           WHEN 'merge.rejected' THEN jsonb_set(data, '{output}', to_jsonb(left(data->>'output', 4000)))
           WHEN 'verify.finished' THEN jsonb_set(data, '{output}', to_jsonb(left(data->>'output', 4000)))
           ELSE data
         END AS data
    FROM colony.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`;

export type EventPageReader = (runId: string, afterSeq: number, limit: number) => Promise<StoredEvent[]>;

export function slimEventReader(pool: pg.Pool): EventPageReader {
  return async (runId, afterSeq, limit) => {
    const res = await pool.query<unknown[]>({
      text: SQL,
      values: [runId, afterSeq, limit],
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
          hash: '',
          prevHash: '',
        }) as StoredEvent,
    );
  };
}
