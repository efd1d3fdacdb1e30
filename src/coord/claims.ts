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
import { KeyedGroupCommit } from '../store/group-commit.js';
import { MAX_SUMMARY_CHARS } from './context.js';
import { coveredBy, nearestFreePaths, RecentOffers } from './nearby-paths.js';
import { parseScope, type Scope } from './scope.js';
import { errorText, isoText } from './sql.js';
import { type BoardTask, type FreeTask, freeTasks, nearestTasks } from './task-queries.js';
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
  /**
   * A PATCH entry already covers this path: work there landed, so it may be done (free-form hint,
   * runs that gave their paths; false otherwise).
   */
  alreadyPatched: boolean;
}

export interface ClaimConflict {
  status: 'conflict';
  claimId: number;
  holder: string;
  holderScope: string;
  summary: string;
  heldMs: number;
  /** Up to 5 ready board tasks nobody holds, nearest to the requested scope first ([] without a board). */
  nearby: BoardTask[];
  /**
   * Without free board tasks: up to 5 paths of the run's base tree nearest the requested path that
   * nobody holds and no PATCH entry covers (nearby-paths.ts); [] for a task scope or a run that gave
   * no paths.
   */
  nearbyPaths: string[];
}

/** The run's repository paths for conflict suggestions (RunWorkspace.basePaths: cached per run). */
export type PathSource = () => Promise<readonly string[]>;

/** Runs whose path source a process keeps (a fleet worker hosts many runs over its life). */
const MAX_PATH_SOURCES = 64;

export const MAX_NEARBY = 5;

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

interface ClaimRow {
  status: 'granted' | 'existing' | 'conflict';
  claim_id: string;
  scope: string;
  holder: string;
  summary: string | null;
  held_ms: string | null;
  entry_id: string | null;
}

export class ClaimService {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  private readonly claims: KeyedGroupCommit<ClaimRequest, ClaimRow>;
  private readonly releases: KeyedGroupCommit<ReleaseRequest, { claimId: number; scope: string }[]>;
  private readonly free: KeyedGroupCommit<null, FreeTask[]>;
  private readonly takenKeys: KeyedGroupCommit<null, TakenPaths>;
  /** Paths just suggested to each agent after a conflict: others are shown other paths first. */
  private readonly offers = new RecentOffers();
  private readonly pathSources = new Map<string, PathSource>();

  constructor(
    private readonly pool: pg.Pool,
    options: { leaseMs?: number; heartbeatMs?: number } = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.claims = new KeyedGroupCommit((runId, items) => claimBatch(pool, runId, items));
    this.releases = new KeyedGroupCommit((runId, items) => releaseBatch(pool, runId, items));
    this.free = new KeyedGroupCommit(async (runId, items) => {
      const tasks = await freeTasks(pool, runId);
      return items.map(() => tasks);
    });
    this.takenKeys = new KeyedGroupCommit(async (runId, items) => {
      const keys = await takenPathKeys(pool, runId);
      return items.map(() => keys);
    });
  }

  /** Where this run's repository paths come from, for free-form conflict suggestions. */
  providePaths(runId: string, source: PathSource): void {
    this.pathSources.delete(runId);
    this.pathSources.set(runId, source);
    for (const oldest of this.pathSources.keys()) {
      if (this.pathSources.size <= MAX_PATH_SOURCES) break;
      this.pathSources.delete(oldest);
    }
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
      const row = await this.claims.add(input.runId, {
        agent: input.agent,
        scope: scope.text,
        kind: scope.kind,
        key: scope.key,
        summary,
        leaseMs: this.leaseMs,
      });
      const claimId = Number(row.claim_id);
      if (row.status === 'conflict') {
        // Suggestions read after the batch, outside the claims lock (one query for all of a run's
        // conflicts at once); claim_next (or the next claim) decides.
        const nearby = nearestTasks(
          await this.free.add(input.runId, null).catch(() => []),
          input.agent,
          scope,
          MAX_NEARBY,
        );
        const conflict: ClaimConflict = {
          status: 'conflict',
          claimId,
          holder: row.holder,
          holderScope: row.scope,
          summary: row.summary ?? '',
          heldMs: Number(row.held_ms ?? 0),
          nearby,
          nearbyPaths: nearby.length > 0 ? [] : await this.freePathsNear(input.runId, input.agent, scope),
        };
        return { ok: true, value: conflict };
      }
      const entryId = row.entry_id === null ? null : Number(row.entry_id);
      const existing = row.status === 'existing';
      return {
        ok: true,
        value: {
          ...granted(claimId, row.scope, this.leaseMs, existing, entryId),
          alreadyPatched: !existing && (await this.patched(input.runId, scope)),
        },
      };
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
      const [released] = await this.releases.add(input.runId, {
        agent: input.agent,
        scope: parsed.value,
        outcome,
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
      const rows = await this.releases.add(runId, {
        agent,
        scope: null,
        outcome: outcome.slice(0, MAX_OUTCOME_CHARS),
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
        const res = await this.pool.query<{ n: number }>('SELECT colony.coord_sweep($1) AS n', [run]);
        expired += res.rows[0]?.n ?? 0;
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

  /** Paths near `scope` nobody holds or has patched (nearby-paths.ts); [] when unknown or on any failure. */
  private async freePathsNear(runId: string, agent: string, scope: Scope): Promise<string[]> {
    const source = this.pathSources.get(runId);
    if (!source || scope.kind !== 'path') return [];
    try {
      const [paths, taken] = await Promise.all([source(), this.takenKeys.add(runId, null)]);
      const near = nearestFreePaths(
        paths,
        new Set([...taken.held, ...taken.patched]),
        scope,
        MAX_NEARBY,
        this.offers.othersOf(runId, agent),
      );
      this.offers.record(runId, agent, near);
      return near;
    } catch {
      return [];
    }
  }

  /** Whether a PATCH entry covers this path (only in runs that gave their paths: free-form hints). */
  private async patched(runId: string, scope: Scope): Promise<boolean> {
    if (scope.kind !== 'path' || !this.pathSources.has(runId)) return false;
    try {
      return coveredBy(scope.key, (await this.takenKeys.add(runId, null)).patched);
    } catch {
      return false;
    }
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

/** Path keys that are not free work: held now, and covered by a PATCH entry (work that landed). */
interface TakenPaths {
  held: Set<string>;
  patched: Set<string>;
}

/** One query: the live-claims index, and the run's PATCH entries (integration posts one per landing). */
async function takenPathKeys(pool: pg.Pool, runId: string): Promise<TakenPaths> {
  const res = await pool.query<{ key: string | null; path: string | null }>(
    `SELECT scope_key AS key, NULL AS path FROM colony.claims
       WHERE run_id = $1 AND ended_at IS NULL AND scope_kind = 'path'
     UNION ALL
     SELECT NULL, unnest(scope) FROM colony.context_entries WHERE run_id = $1 AND kind = 'PATCH'`,
    [runId],
  );
  const taken: TakenPaths = { held: new Set(), patched: new Set() };
  for (const row of res.rows) {
    if (row.key !== null) taken.held.add(row.key);
    else if (row.path !== null) {
      const parsed = parseScope(row.path);
      if (parsed.ok && parsed.value.kind === 'path') taken.patched.add(parsed.value.key);
    }
  }
  return taken;
}

function granted(
  claimId: number,
  scope: string,
  leaseMs: number,
  existing: boolean,
  entryId: number | null,
): ClaimGranted {
  return { status: 'granted', claimId, scope, leaseMs, existing, entryId, alreadyPatched: false };
}

interface ClaimRequest {
  agent: string;
  scope: string;
  kind: Scope['kind'];
  key: string;
  summary: string;
  leaseMs: number;
}

interface ReleaseRequest {
  agent: string;
  /** null: all of the agent's claims. */
  scope: Scope | null;
  outcome: string;
}

/**
 * Claims of one run in one statement: coord_claim (migration 003) runs once per request, in order,
 * inside one transaction — it takes the run's claims lock, ends lapsed leases, and grants or reports
 * the conflict; each call sees the previous ones. One commit (one fsync) for the whole batch.
 */
async function claimBatch(pool: pg.Pool, runId: string, items: ClaimRequest[]): Promise<ClaimRow[]> {
  const res = await pool.query<ClaimRow & { i: string }>(
    `SELECT e.i, r.* FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(x, i)
     CROSS JOIN LATERAL colony.coord_claim($1, e.x->>'agent', e.x->>'scope', e.x->>'kind', e.x->>'key',
                                           e.x->>'summary', (e.x->>'leaseMs')::integer) r
     ORDER BY e.i`,
    [runId, JSON.stringify(items)],
  );
  return res.rows;
}

/** Releases of one run in one statement (coord_release per request, in order). */
async function releaseBatch(
  pool: pg.Pool,
  runId: string,
  items: ReleaseRequest[],
): Promise<{ claimId: number; scope: string }[][]> {
  const res = await pool.query<{ i: string; claim_id: string | null; scope: string | null }>(
    `SELECT e.i, r.claim_id, r.scope FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(x, i)
     LEFT JOIN LATERAL colony.coord_release($1, e.x->>'agent', e.x->>'kind', e.x->>'key', e.x->>'outcome') r ON true
     ORDER BY e.i, r.claim_id`,
    [
      runId,
      JSON.stringify(
        items.map((item) => ({
          agent: item.agent,
          kind: item.scope?.kind ?? null,
          key: item.scope?.key ?? null,
          outcome: item.outcome,
        })),
      ),
    ],
  );
  const out: { claimId: number; scope: string }[][] = items.map(() => []);
  for (const row of res.rows) {
    if (row.claim_id === null || row.scope === null) continue;
    out[Number(row.i) - 1]?.push({ claimId: Number(row.claim_id), scope: row.scope });
  }
  return out;
}
