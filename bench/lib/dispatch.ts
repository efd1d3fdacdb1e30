/**
 * Dispatch latency of a fleet run: for each agent session (one DBOS workflow on the fleet queue, id
 * `<runId>/<agent>` for a peer, `<runId>/<agent>/<task>` for a subagent's task), from its enqueue to
 * that session's first model call arriving at the model server.
 *
 * - Enqueue: `dbos.workflow_status.created_at` — epoch ms, the database's clock at the INSERT the
 *   owner's DBOSClient.enqueue makes (the column's default; @dbos-inc/dbos-sdk 5.3.0).
 * - Dequeued: `started_at_epoch_ms` of the same row — the database's clock when a worker claimed it.
 * - First model call: the model server's span start (its wall clock, the same machine's).
 */
import pg from 'pg';
import { SESSION_WORKFLOW } from '../../src/fleet/names.js';
import type { ServerSpan } from './model-server.js';

export interface SessionRow {
  workflowId: string;
  agent: string;
  task: string | null;
  createdAt: number;
  startedAt: number | null;
  status: string;
}

/** The run's session workflows, from DBOS's system tables (as the database's superuser). */
export async function sessionRows(databaseUrl: string, runId: string): Promise<SessionRow[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const res = await client.query<{
      workflow_uuid: string;
      created_at: string;
      started_at_epoch_ms: string | null;
      status: string;
    }>(
      `SELECT workflow_uuid, created_at, started_at_epoch_ms, status FROM dbos.workflow_status
        WHERE left(workflow_uuid, length($1) + 1) = $1 || '/' AND name = $2`,
      [runId, SESSION_WORKFLOW],
    );
    return res.rows.map((row) => {
      const [, agent = '', task] = row.workflow_uuid.slice(runId.length).split('/');
      return {
        workflowId: row.workflow_uuid,
        agent,
        task: task ?? null,
        createdAt: Number(row.created_at),
        startedAt: row.started_at_epoch_ms === null ? null : Number(row.started_at_epoch_ms),
        status: row.status,
      };
    });
  } finally {
    await client.end().catch(() => {});
  }
}

export interface DispatchFigures {
  sessions: number;
  /** Sessions with a first model call found (a session that never called the model has none). */
  measured: number;
  dispatchMs: number[];
  /** Enqueue → claimed by a worker (DBOS's started_at_epoch_ms). */
  dequeueMs: number[];
}

/**
 * Matches each session with its first model call: the agent's first span that starts at or after
 * the session's enqueue (1 ms of slack: the clocks round differently) and before the agent's next
 * session was enqueued.
 */
export function dispatchFigures(
  sessions: readonly SessionRow[],
  spans: readonly ServerSpan[],
): DispatchFigures {
  const byAgent = new Map<string, ServerSpan[]>();
  for (const span of spans) {
    const list = byAgent.get(span.agent);
    if (list) list.push(span);
    else byAgent.set(span.agent, [span]);
  }
  for (const list of byAgent.values()) list.sort((a, b) => a.start - b.start);
  const sessionsOf = new Map<string, SessionRow[]>();
  for (const s of sessions) sessionsOf.set(s.agent, [...(sessionsOf.get(s.agent) ?? []), s]);
  const dispatchMs: number[] = [];
  const dequeueMs: number[] = [];
  for (const [agent, list] of sessionsOf) {
    list.sort((a, b) => a.createdAt - b.createdAt);
    const calls = byAgent.get(agent) ?? [];
    list.forEach((session, i) => {
      if (session.startedAt !== null) dequeueMs.push(session.startedAt - session.createdAt);
      const next = list[i + 1]?.createdAt ?? Number.POSITIVE_INFINITY;
      const first = calls.find((c) => c.start >= session.createdAt - 1 && c.start < next);
      if (first) dispatchMs.push(Math.max(0, first.start - session.createdAt));
    });
  }
  return { sessions: sessions.length, measured: dispatchMs.length, dispatchMs, dequeueMs };
}

/** The p-quantile (0..1) of unsorted values, nearest rank; 0 for none. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}
