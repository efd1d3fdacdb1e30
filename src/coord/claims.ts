/**
 * Claims with leases. A claim is granted inside a transaction that holds the run's claims lock
 * (a transaction-scoped advisory lock), so across processes exactly one agent holds overlapping
 * scopes at a time. The same transaction ends lapsed leases first (`claim.expired`, exactly once),
 * and writes the claim, its `claim.granted` event and its CLAIM context entry, so the event log's
 * order is the order claims changed hands (checkGrantHistory replays it).
 *
 * An agent's own claims never conflict with each other: claiming a scope that one of your claims
 * already covers (the same scope or an ancestor folder) returns that claim and renews its lease;
 * claiming a wider scope than one you hold is a new claim (both are then held).
 */
import type pg from 'pg';
import { MAX_SUMMARY_CHARS } from './context.js';
import { parseScope, type Scope, scopeCovers } from './scope.js';
import { errorText, inTransaction, isoText } from './sql.js';
import type { AgentRef, Result } from './types.js';

export const DEFAULT_LEASE_MS = 5 * 60_000;
export const DEFAULT_HEARTBEAT_MS = 30_000;
export const MAX_OUTCOME_CHARS = 2000;

export interface ClaimInput {
  runId: string;
  agent: string;
  scope: string;
  summary: string;
}

export interface ClaimGranted {
  status: 'granted';
  claimId: number;
  /** The normalised scope of the claim that now covers the request. */
  scope: string;
  leaseMs: number;
  /** True when an existing claim of this agent already covered the scope (its lease was renewed). */
  existing: boolean;
  /** The CLAIM entry posted to the shared context (null when `existing`). */
  entryId: number | null;
}

export interface ClaimConflict {
  status: 'conflict';
  claimId: number;
  holder: string;
  holderScope: string;
  summary: string;
  heldMs: number;
}

export type ClaimOutcome = ClaimGranted | ClaimConflict;

export interface HeldClaim {
  claimId: number;
  runId: string;
  agent: string;
  scope: string;
  summary: string;
  grantedAt: string;
  leaseUntil: string;
  heldMs: number;
}

export interface ReleaseInput {
  runId: string;
  agent: string;
  scope: string;
  outcome: string;
}

export interface Heartbeat {
  /** Renews now (and sweeps lapsed leases); resolves when done. */
  beat(): Promise<void>;
  stop(): void;
}

const msSince = (column: string) => `(extract(epoch FROM clock_timestamp() - ${column}) * 1000)::bigint`;

// $1 run. Ends every lapsed lease of the run and logs each expiry; run under the run's claims lock.
const EXPIRE_SQL = `
WITH x AS (
  UPDATE colony.claims SET ended_at = clock_timestamp(), end_kind = 'expired'
  WHERE run_id = $1 AND ended_at IS NULL AND lease_until <= clock_timestamp()
  RETURNING id, agent, scope, (extract(epoch FROM ended_at - granted_at) * 1000)::bigint AS held_ms
)
INSERT INTO colony.events (run_id, agent, kind, data)
SELECT $1, agent, 'claim.expired',
       jsonb_build_object('claimId', id, 'scope', scope, 'holder', agent, 'heldMs', held_ms)
FROM x ORDER BY id`;

// $1 run, $2 kind, $3 key.
const OVERLAPS_SQL = `
SELECT id, agent, scope, scope_key, summary, ${msSince('granted_at')} AS held_ms
FROM colony.claims
WHERE run_id = $1 AND ended_at IS NULL AND scope_kind = $2
  AND CASE WHEN $2 = 'task' THEN scope_key = $3
           ELSE starts_with(scope_key, $3) OR starts_with($3, scope_key) END
ORDER BY id`;

// $1 run, $2 agent, $3 scope text, $4 kind, $5 key, $6 summary, $7 lease ms.
const GRANT_SQL = `
WITH c AS (
  INSERT INTO colony.claims (run_id, agent, scope, scope_kind, scope_key, summary, lease_ms, granted_at, lease_until)
  VALUES ($1, $2, $3, $4, $5, $6, $7::integer, clock_timestamp(),
          clock_timestamp() + make_interval(secs => $7::integer / 1000.0))
  RETURNING id
),
head AS (
  INSERT INTO colony.context_heads AS h (run_id, last_id) VALUES ($1, 1)
  ON CONFLICT (run_id) DO UPDATE SET last_id = h.last_id + 1
  RETURNING h.last_id AS id
),
entry AS (
  INSERT INTO colony.context_entries (run_id, id, author, kind, summary, scope)
  SELECT $1, head.id, $2, 'CLAIM', $6, ARRAY[$3::text] FROM head
  RETURNING id
),
logged AS (
  INSERT INTO colony.events (run_id, agent, kind, data)
  SELECT $1, $2, k, d FROM (
    SELECT 1 AS o, 'claim.granted' AS k,
           jsonb_build_object('claimId', c.id, 'scope', $3::text, 'summary', $6::text, 'leaseMs', $7::integer) AS d
    FROM c
    UNION ALL
    SELECT 2, 'context.posted',
           jsonb_build_object('id', entry.id, 'kind', 'CLAIM', 'summary', $6::text,
                              'scope', jsonb_build_array($3::text), 'hasDetail', false)
    FROM entry) s
  ORDER BY o
)
SELECT c.id AS claim_id, entry.id AS entry_id FROM c, entry`;

interface OverlapRow {
  id: string;
  agent: string;
  scope: string;
  scope_key: string;
  summary: string;
  held_ms: string;
}

export class ClaimService {
  readonly leaseMs: number;
  readonly heartbeatMs: number;

  constructor(
    private readonly pool: pg.Pool,
    options: { leaseMs?: number; heartbeatMs?: number } = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  }

  async claim(input: ClaimInput): Promise<Result<ClaimOutcome>> {
    const parsed = parseScope(input.scope);
    if (!parsed.ok) return parsed;
    const scope = parsed.value;
    const summary = input.summary.trim();
    const chars = [...summary].length;
    if (chars === 0) return { ok: false, error: 'summary is empty: say what you will do in this scope' };
    if (chars > MAX_SUMMARY_CHARS) {
      return { ok: false, error: `summary is ${chars} characters; the limit is ${MAX_SUMMARY_CHARS}` };
    }
    try {
      const outcome = await inTransaction(this.pool, async (client) => {
        await lockRun(client, input.runId);
        await client.query(EXPIRE_SQL, [input.runId]);
        const overlapping = (
          await client.query<OverlapRow>(OVERLAPS_SQL, [input.runId, scope.kind, scope.key])
        ).rows;
        const mine = overlapping.find(
          (row) =>
            row.agent === input.agent &&
            scopeCovers({ kind: scope.kind, key: row.scope_key, text: row.scope }, scope),
        );
        if (mine) {
          await client.query(
            `UPDATE colony.claims SET lease_until = clock_timestamp() + make_interval(secs => lease_ms / 1000.0)
             WHERE id = $1`,
            [mine.id],
          );
          return granted(Number(mine.id), mine.scope, this.leaseMs, true, null);
        }
        const other = overlapping.find((row) => row.agent !== input.agent);
        if (other) {
          const heldMs = Number(other.held_ms);
          await client.query(
            `INSERT INTO colony.events (run_id, agent, kind, data) VALUES ($1, $2, 'claim.conflict', $3)`,
            [
              input.runId,
              input.agent,
              { scope: scope.text, holder: other.agent, holderScope: other.scope, heldMs },
            ],
          );
          const conflict: ClaimConflict = {
            status: 'conflict',
            claimId: Number(other.id),
            holder: other.agent,
            holderScope: other.scope,
            summary: other.summary,
            heldMs,
          };
          return conflict;
        }
        const res = await client.query<{ claim_id: string; entry_id: string }>(GRANT_SQL, [
          input.runId,
          input.agent,
          scope.text,
          scope.kind,
          scope.key,
          summary,
          this.leaseMs,
        ]);
        const row = res.rows[0];
        if (!row) throw new Error('the database returned no row for the grant');
        return granted(Number(row.claim_id), scope.text, this.leaseMs, false, Number(row.entry_id));
      });
      return { ok: true, value: outcome };
    } catch (err) {
      return { ok: false, error: `claims: ${errorText(err)}` };
    }
  }

  /** Releases this agent's claim on exactly this scope (same normalised path or task id). */
  async release(input: ReleaseInput): Promise<Result<{ claimId: number; scope: string }>> {
    const parsed = parseScope(input.scope);
    if (!parsed.ok) return parsed;
    const outcome = input.outcome.trim();
    if (outcome.length > MAX_OUTCOME_CHARS) {
      return {
        ok: false,
        error: `outcome is ${outcome.length} characters; the limit is ${MAX_OUTCOME_CHARS}`,
      };
    }
    try {
      const released = await inTransaction(this.pool, async (client) => {
        await lockRun(client, input.runId);
        await client.query(EXPIRE_SQL, [input.runId]);
        const rows = await endClaims(client, input.runId, input.agent, outcome, parsed.value);
        if (rows.length > 0) return rows[0]!;
        return null;
      });
      if (released) return { ok: true, value: released };
      return { ok: false, error: await this.whyNotHeld(input.runId, input.agent, parsed.value) };
    } catch (err) {
      return { ok: false, error: `claims: ${errorText(err)}` };
    }
  }

  /** Releases every claim of the agent (when it finishes). Returns how many were released. */
  async releaseAll(runId: string, agent: string, outcome = 'agent finished'): Promise<Result<number>> {
    try {
      const rows = await inTransaction(this.pool, async (client) => {
        await lockRun(client, runId);
        await client.query(EXPIRE_SQL, [runId]);
        return endClaims(client, runId, agent, outcome.slice(0, MAX_OUTCOME_CHARS), null);
      });
      return { ok: true, value: rows.length };
    } catch (err) {
      return { ok: false, error: `claims: ${errorText(err)}` };
    }
  }

  /** Claims currently held in a run (optionally by one agent), oldest first. Lapsed leases included until swept. */
  async held(runId: string, agent?: string): Promise<Result<HeldClaim[]>> {
    try {
      const res = await this.pool.query<{
        id: string;
        agent: string;
        scope: string;
        summary: string;
        granted_at: string;
        lease_until: string;
        held_ms: string;
      }>(
        `SELECT id, agent, scope, summary, ${isoText('granted_at')} AS granted_at,
                ${isoText('lease_until')} AS lease_until, ${msSince('granted_at')} AS held_ms
         FROM colony.claims WHERE run_id = $1 AND ended_at IS NULL AND ($2::text IS NULL OR agent = $2)
         ORDER BY id`,
        [runId, agent ?? null],
      );
      return {
        ok: true,
        value: res.rows.map((r) => ({
          claimId: Number(r.id),
          runId,
          agent: r.agent,
          scope: r.scope,
          summary: r.summary,
          grantedAt: r.granted_at,
          leaseUntil: r.lease_until,
          heldMs: Number(r.held_ms),
        })),
      };
    } catch (err) {
      return { ok: false, error: `claims: ${errorText(err)}` };
    }
  }

  /** Extends the lease of every live claim of these agents. Lapsed leases are not revived. */
  async renew(agents: readonly AgentRef[]): Promise<Result<number>> {
    if (agents.length === 0) return { ok: true, value: 0 };
    try {
      const res = await this.pool.query(
        `UPDATE colony.claims c SET lease_until = clock_timestamp() + make_interval(secs => c.lease_ms / 1000.0)
         FROM unnest($1::text[], $2::text[]) AS a(run_id, agent)
         WHERE c.run_id = a.run_id AND c.agent = a.agent AND c.ended_at IS NULL
           AND c.lease_until > clock_timestamp()`,
        [agents.map((a) => a.runId), agents.map((a) => a.agent)],
      );
      return { ok: true, value: res.rowCount ?? 0 };
    } catch (err) {
      return { ok: false, error: `claims: ${errorText(err)}` };
    }
  }

  /** Ends lapsed leases in every run (or one run), logging `claim.expired` for each. */
  async sweep(runId?: string): Promise<Result<number>> {
    try {
      const runs =
        runId !== undefined
          ? [runId]
          : (
              await this.pool.query<{ run_id: string }>(
                `SELECT DISTINCT run_id FROM colony.claims
                 WHERE ended_at IS NULL AND lease_until <= clock_timestamp()`,
              )
            ).rows.map((r) => r.run_id);
      let expired = 0;
      for (const run of runs) {
        expired += await inTransaction(this.pool, async (client) => {
          await lockRun(client, run);
          return (await client.query(EXPIRE_SQL, [run])).rowCount ?? 0;
        });
      }
      return { ok: true, value: expired };
    } catch (err) {
      return { ok: false, error: `claims: ${errorText(err)}` };
    }
  }

  /**
   * Renews the claims of the agents alive in this process every `heartbeatMs` (an in-process timer,
   * so it keeps beating while tools run as child processes), then sweeps lapsed leases of any run.
   */
  startHeartbeat(
    agents: () => readonly AgentRef[],
    options: { intervalMs?: number; onError?: (error: string) => void } = {},
  ): Heartbeat {
    let running: Promise<void> | null = null;
    const beat = (): Promise<void> => {
      running ??= (async () => {
        const renewed = await this.renew(agents());
        if (!renewed.ok) options.onError?.(renewed.error);
        const swept = await this.sweep();
        if (!swept.ok) options.onError?.(swept.error);
      })().finally(() => {
        running = null;
      });
      return running;
    };
    const timer = setInterval(() => void beat(), options.intervalMs ?? this.heartbeatMs);
    // The heartbeat alone must not keep a finished process alive.
    timer.unref();
    return { beat, stop: () => clearInterval(timer) };
  }

  private async whyNotHeld(runId: string, agent: string, scope: Scope): Promise<string> {
    const held = await this.held(runId, agent);
    const last = await this.pool
      .query<{ end_kind: string | null }>(
        `SELECT end_kind FROM colony.claims WHERE run_id = $1 AND agent = $2 AND scope_key = $3 AND scope_kind = $4
         ORDER BY id DESC LIMIT 1`,
        [runId, agent, scope.key, scope.kind],
      )
      .catch(() => null);
    const kind = last?.rows[0]?.end_kind;
    const yours = held.ok && held.value.length > 0 ? held.value.map((c) => c.scope).join(', ') : 'none';
    const why =
      kind === 'expired'
        ? `your claim on ${scope.text} expired (its lease lapsed)`
        : kind === 'released'
          ? `your claim on ${scope.text} was already released`
          : `you hold no claim on ${scope.text}`;
    return `${why}; your claims: ${yours}`;
  }
}

function granted(
  claimId: number,
  scope: string,
  leaseMs: number,
  existing: boolean,
  entryId: number | null,
): ClaimGranted {
  return { status: 'granted', claimId, scope, leaseMs, existing, entryId };
}

async function lockRun(client: pg.PoolClient, runId: string): Promise<void> {
  await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`colony.claims:${runId}`]);
}

/** Ends the agent's held claims on `scope` (all of them when null) as released, logging each. */
async function endClaims(
  client: pg.PoolClient,
  runId: string,
  agent: string,
  outcome: string,
  scope: Scope | null,
): Promise<{ claimId: number; scope: string }[]> {
  const res = await client.query<{ id: string; scope: string }>(
    `WITH r AS (
       UPDATE colony.claims SET ended_at = clock_timestamp(), end_kind = 'released', outcome = $3
       WHERE run_id = $1 AND agent = $2 AND ended_at IS NULL
         AND ($4::text IS NULL OR (scope_kind = $4 AND scope_key = $5))
       RETURNING id, scope
     ),
     logged AS (
       INSERT INTO colony.events (run_id, agent, kind, data)
       SELECT $1, $2, 'claim.released', jsonb_build_object('claimId', id, 'scope', scope, 'outcome', $3::text)
       FROM r ORDER BY id
     )
     SELECT id, scope FROM r ORDER BY id`,
    [runId, agent, outcome, scope?.kind ?? null, scope?.key ?? null],
  );
  return res.rows.map((r) => ({ claimId: Number(r.id), scope: r.scope }));
}
