/**
 * The runs page's rows: the runs table plus per-run aggregates computed in Postgres (one grouped
 * query, so listing runs never loads their events into the server).
 */
import type pg from 'pg';
import { shownStatus } from '../run/interrupted.js';
import type { RunRecord } from '../store/index.js';

export interface RunListItem {
  runId: string;
  status: string;
  topology: string;
  goal: string;
  repo: string;
  createdAt: string;
  finishedAt: string | null;
  agents: number;
  events: number;
  wallClockMs: number;
  costUsd: number | null;
  /** Every token: uncached and cached input, cache writes, output (as the run page's Tokens card). */
  tokens: number;
  verify: { passed: boolean; command: string } | null;
}

interface AggRow {
  run_id: string;
  agents: string;
  events: string;
  wall_ms: number | null;
  cost: number | null;
  tokens: string | null;
  verify_passed: boolean | null;
  verify_command: string | null;
}

const AGG_SQL = `
  SELECT run_id,
         count(*) FILTER (WHERE kind = 'agent.started') AS agents,
         count(*) AS events,
         (extract(epoch FROM max(ts) - min(ts)) * 1000)::float8 AS wall_ms,
         sum((data->'turn'->>'costUsd')::float8) FILTER (WHERE kind = 'model.response') AS cost,
         sum((data->'turn'->'usage'->>'input')::bigint
             + coalesce((data->'turn'->'usage'->>'cachedInput')::bigint, 0)
             + coalesce((data->'turn'->'usage'->>'cacheWrite')::bigint, 0)
             + (data->'turn'->'usage'->>'output')::bigint)
           FILTER (WHERE kind = 'model.response') AS tokens,
         ((array_agg(data ORDER BY seq DESC) FILTER (WHERE kind = 'verify.finished' AND agent IS NULL))[1]->>'passed')::boolean
           AS verify_passed,
         (array_agg(data ORDER BY seq DESC) FILTER (WHERE kind = 'verify.finished' AND agent IS NULL))[1]->>'command'
           AS verify_command
    FROM colony.events WHERE run_id = ANY($1::text[]) GROUP BY run_id`;

/** `interrupted`: the running runs no process executes any more (run/interrupted.ts), shown so. */
export async function listRunItems(
  pool: pg.Pool,
  runs: readonly RunRecord[],
  interrupted: ReadonlySet<string> = new Set(),
): Promise<RunListItem[]> {
  const agg = new Map<string, AggRow>();
  if (runs.length > 0) {
    const res = await pool.query<AggRow>(AGG_SQL, [runs.map((r) => r.runId)]);
    for (const row of res.rows) agg.set(row.run_id, row);
  }
  return runs.map((r) => {
    const a = agg.get(r.runId);
    return {
      runId: r.runId,
      status: shownStatus(r.runId, r.status, interrupted),
      topology: r.topology,
      goal: r.goal,
      repo: r.repo,
      createdAt: r.createdAt,
      finishedAt: r.finishedAt,
      agents: Number(a?.agents ?? 0),
      events: Number(a?.events ?? 0),
      wallClockMs: Math.round(a?.wall_ms ?? 0),
      costUsd: a?.cost === null || a?.cost === undefined ? null : Math.round(a.cost * 1e6) / 1e6,
      tokens: Number(a?.tokens ?? 0),
      verify:
        a?.verify_passed === null || a?.verify_passed === undefined
          ? null
          : { passed: a.verify_passed, command: a.verify_command ?? '' },
    };
  });
}
