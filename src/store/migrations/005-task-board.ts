import type { Migration } from '../migration-types.js';

/**
 * The task board (docs/coordination.md § Task board): tasks with predecessors, per run, built on the
 * claims of migration 003. Tasks change only under the run's claims lock (the same transaction-scoped
 * advisory lock coord_claim takes), so readiness, grants and "done" are decided in one serial order
 * per run, and every change is an event in colony.events in the same transaction.
 *
 * - `claim_id` is the live claim claim_next granted on the task (cleared when that claim ends), so
 *   the ready scan skips held tasks by index instead of comparing every task with every claim.
 * - `blocked_by` counts predecessors not done yet; a task becoming done decrements its successors.
 *   Predecessors must exist when a task is added, so the graph is acyclic by construction.
 * - coord_release and coord_expire are redefined (same signatures) to settle the tasks of the claims
 *   they end: released with a done outcome (starts with "done" or "landed") → the task is done;
 *   otherwise it goes back on the board (task.reopened), and a release marks it failed for that agent.
 */
export const migration005: Migration = {
  version: 5,
  name: 'task-board',
  sql: `
CREATE TABLE colony.tasks (
  run_id text NOT NULL,
  id bigint NOT NULL,
  dedupe_key text NOT NULL,
  title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  detail text,
  scope text NOT NULL,
  scope_kind text NOT NULL CHECK (scope_kind IN ('path', 'task')),
  scope_key text NOT NULL,
  after_ids bigint[] NOT NULL DEFAULT '{}',
  blocked_by integer NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'dropped')),
  claim_id bigint,
  failed_by text[] NOT NULL DEFAULT '{}',
  done_claim bigint,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, id),
  UNIQUE (run_id, dedupe_key)
);
CREATE INDEX tasks_ready ON colony.tasks (run_id, id) WHERE status = 'open' AND claim_id IS NULL AND blocked_by = 0;
CREATE INDEX tasks_claim ON colony.tasks (claim_id) WHERE claim_id IS NOT NULL;
CREATE INDEX tasks_open_scope ON colony.tasks (run_id, scope_kind, scope_key) WHERE status = 'open';

-- Live claims by scope key in byte order: "is this scope free" is a few index probes (the ancestors
-- of the key, and the range of its descendants) instead of a scan of every live claim.
CREATE INDEX claims_live_scope ON colony.claims (run_id, scope_kind, scope_key COLLATE "C") WHERE ended_at IS NULL;

-- '' and every ancestor folder key of a path key, itself included: 'a/b/' -> {'', 'a/', 'a/b/'}.
CREATE FUNCTION colony.coord_key_prefixes(p_key text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT array_agg(left(p_key, i) COLLATE "C" ORDER BY i) FROM generate_series(0, length(p_key)) AS i
  WHERE i = 0 OR substr(p_key, i, 1) = '/'
$fn$;

-- True when no live claim (of anyone) overlaps the scope (same rules as coord_claim). Each probe is
-- an equality or range on claims_live_scope; the prefixes go through a variable so that they are
-- computed once, not per row.
CREATE FUNCTION colony.coord_scope_free(p_run text, p_kind text, p_key text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  v_prefix text;
BEGIN
  IF p_kind = 'task' THEN
    RETURN NOT EXISTS (SELECT 1 FROM colony.claims k WHERE k.run_id = p_run AND k.ended_at IS NULL
      AND k.scope_kind = 'task' AND (k.scope_key COLLATE "C") = p_key);
  END IF;
  IF p_key = '' THEN
    RETURN NOT EXISTS (SELECT 1 FROM colony.claims k WHERE k.run_id = p_run AND k.ended_at IS NULL
      AND k.scope_kind = 'path');
  END IF;
  FOREACH v_prefix IN ARRAY colony.coord_key_prefixes(p_key) LOOP
    IF EXISTS (SELECT 1 FROM colony.claims k WHERE k.run_id = p_run AND k.ended_at IS NULL
               AND k.scope_kind = 'path' AND (k.scope_key COLLATE "C") = v_prefix) THEN
      RETURN false;
    END IF;
  END LOOP;
  -- Keys end with '/', and '0' is the byte after '/': descendants are [key, key-without-slash || '0').
  RETURN NOT EXISTS (SELECT 1 FROM colony.claims k WHERE k.run_id = p_run AND k.ended_at IS NULL
    AND k.scope_kind = 'path' AND (k.scope_key COLLATE "C") >= p_key
    AND (k.scope_key COLLATE "C") < (left(p_key, -1) || '0'));
END
$fn$;

-- coord_claim of migration 003, unchanged but for how it finds a conflicting claim.
CREATE OR REPLACE FUNCTION colony.coord_claim(p_run text, p_agent text, p_scope text, p_kind text, p_key text,
                                   p_summary text, p_lease_ms integer)
RETURNS TABLE (status text, claim_id bigint, scope text, holder text, summary text, held_ms bigint,
               entry_id bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  c record;
  v_claim bigint;
  v_entry bigint;
  v_best bigint;
  v_id bigint;
  v_prefix text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('colony.claims:' || p_run, 0));
  -- Lock the run's context head before any event is written: posts take it before the run's event
  -- head too, so both orders agree (no deadlock between a grant and a concurrent post).
  INSERT INTO colony.context_heads AS h (run_id, last_id) VALUES (p_run, 0)
  ON CONFLICT (run_id) DO UPDATE SET last_id = h.last_id;
  PERFORM colony.coord_expire(p_run);
  -- Already covered by one of the agent's own claims (same scope or an ancestor): renew it.
  SELECT k.id, k.scope INTO c FROM colony.claims k
  WHERE k.run_id = p_run AND k.agent = p_agent AND k.ended_at IS NULL AND k.scope_kind = p_kind
    AND CASE WHEN p_kind = 'task' THEN k.scope_key = p_key ELSE starts_with(p_key, k.scope_key) END
  ORDER BY k.id LIMIT 1;
  IF FOUND THEN
    UPDATE colony.claims k SET lease_until = clock_timestamp() + make_interval(secs => k.lease_ms / 1000.0)
    WHERE k.id = c.id;
    RETURN QUERY SELECT 'existing'::text, c.id, c.scope, p_agent, NULL::text, NULL::bigint, NULL::bigint;
    RETURN;
  END IF;
  -- The oldest overlapping claim of another agent, by index probes: the same key, each ancestor
  -- folder key, and the range of descendant keys (migration 003 scanned every live claim). OFFSET 0
  -- keeps the planner from turning min(id) into a walk of the primary key over every run's claims.
  IF p_kind = 'task' THEN
    SELECT min(o.id) INTO v_best FROM (SELECT k.id FROM colony.claims k WHERE k.run_id = p_run AND k.ended_at IS NULL
      AND k.scope_kind = 'task' AND (k.scope_key COLLATE "C") = p_key AND k.agent <> p_agent OFFSET 0) o;
  ELSIF p_key = '' THEN
    SELECT min(o.id) INTO v_best FROM (SELECT k.id FROM colony.claims k WHERE k.run_id = p_run AND k.ended_at IS NULL
      AND k.scope_kind = 'path' AND k.agent <> p_agent OFFSET 0) o;
  ELSE
    FOREACH v_prefix IN ARRAY colony.coord_key_prefixes(p_key) LOOP
      SELECT min(o.id) INTO v_id FROM (SELECT k.id FROM colony.claims k WHERE k.run_id = p_run AND k.ended_at IS NULL
        AND k.scope_kind = 'path' AND (k.scope_key COLLATE "C") = v_prefix AND k.agent <> p_agent OFFSET 0) o;
      v_best := least(v_best, v_id);
    END LOOP;
    SELECT min(o.id) INTO v_id FROM (SELECT k.id FROM colony.claims k WHERE k.run_id = p_run AND k.ended_at IS NULL
      AND k.scope_kind = 'path' AND (k.scope_key COLLATE "C") >= p_key
      AND (k.scope_key COLLATE "C") < (left(p_key, -1) || '0') AND k.agent <> p_agent OFFSET 0) o;
    v_best := least(v_best, v_id);
  END IF;
  SELECT k.id, k.agent, k.scope, k.summary,
         (extract(epoch FROM clock_timestamp() - k.granted_at) * 1000)::bigint AS held_ms
  INTO c FROM colony.claims k WHERE k.id = v_best;
  IF FOUND THEN
    INSERT INTO colony.events (run_id, agent, kind, data) VALUES (p_run, p_agent, 'claim.conflict',
      jsonb_build_object('scope', p_scope, 'holder', c.agent, 'holderScope', c.scope, 'heldMs', c.held_ms));
    RETURN QUERY SELECT 'conflict'::text, c.id, c.scope, c.agent, c.summary, c.held_ms, NULL::bigint;
    RETURN;
  END IF;
  INSERT INTO colony.claims (run_id, agent, scope, scope_kind, scope_key, summary, lease_ms, granted_at, lease_until)
  VALUES (p_run, p_agent, p_scope, p_kind, p_key, p_summary, p_lease_ms, clock_timestamp(),
          clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0))
  RETURNING id INTO v_claim;
  INSERT INTO colony.context_heads AS h (run_id, last_id) VALUES (p_run, 1)
  ON CONFLICT (run_id) DO UPDATE SET last_id = h.last_id + 1
  RETURNING h.last_id INTO v_entry;
  INSERT INTO colony.context_entries (run_id, id, author, kind, summary, scope)
  VALUES (p_run, v_entry, p_agent, 'CLAIM', p_summary, ARRAY[p_scope]);
  INSERT INTO colony.events (run_id, agent, kind, data) VALUES
    (p_run, p_agent, 'claim.granted',
     jsonb_build_object('claimId', v_claim, 'scope', p_scope, 'summary', p_summary, 'leaseMs', p_lease_ms)),
    (p_run, p_agent, 'context.posted',
     jsonb_build_object('id', v_entry, 'kind', 'CLAIM', 'summary', p_summary, 'scope', jsonb_build_array(p_scope),
                        'hasDetail', false));
  RETURN QUERY SELECT 'granted'::text, v_claim, p_scope, p_agent, p_summary, 0::bigint, v_entry;
END
$fn$;

-- The rule for done (mirrored by isDoneOutcome in src/coord/outcome.ts).
CREATE FUNCTION colony.coord_outcome_done(p_outcome text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $fn$
  SELECT coalesce(p_outcome ~* '^\\s*(done|landed)\\M', false)
$fn$;

-- Length of the longest common ancestor folder key of two path keys ('' = 0): "nearby" ordering.
CREATE FUNCTION colony.coord_shared_prefix(a text, b text) RETURNS integer LANGUAGE sql IMMUTABLE AS $fn$
  SELECT coalesce(max(i), 0) FROM generate_series(1, length(a)) AS i
  WHERE substr(a, i, 1) = '/' AND starts_with(b, left(a, i))
$fn$;

-- Settles the tasks of claims that just ended (called under the claims lock by release and expiry).
CREATE FUNCTION colony.coord_tasks_claims_ended(p_run text, p_ids bigint[]) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  c record;
  t record;
  v_task bigint;
BEGIN
  FOR c IN SELECT k.id, k.agent, k.scope_kind, k.scope_key, k.end_kind, k.outcome FROM colony.claims k
           WHERE k.id = ANY (p_ids) ORDER BY k.id LOOP
    IF c.end_kind = 'released' AND colony.coord_outcome_done(c.outcome) THEN
      v_task := NULL;
      -- The task claim_next granted this claim for; for a claim made with claim, the lowest-id open
      -- task on exactly its scope.
      SELECT x.id INTO v_task FROM colony.tasks x WHERE x.claim_id = c.id AND x.run_id = p_run AND x.status = 'open';
      IF v_task IS NULL THEN
        SELECT x.id INTO v_task FROM colony.tasks x
        WHERE x.run_id = p_run AND x.status = 'open' AND x.claim_id IS NULL
          AND x.scope_kind = c.scope_kind AND x.scope_key = c.scope_key
        ORDER BY x.id LIMIT 1;
      END IF;
      FOR t IN UPDATE colony.tasks x SET status = 'done', claim_id = NULL, done_claim = c.id,
                 updated_at = clock_timestamp()
               WHERE x.run_id = p_run AND x.id = v_task
               RETURNING x.id, x.scope LOOP
        UPDATE colony.tasks s SET blocked_by = s.blocked_by - 1
        WHERE s.run_id = p_run AND s.status = 'open' AND t.id = ANY (s.after_ids);
        INSERT INTO colony.events (run_id, agent, kind, data) VALUES (p_run, c.agent, 'task.done',
          jsonb_build_object('id', t.id, 'scope', t.scope, 'claimId', c.id, 'outcome', c.outcome));
      END LOOP;
    ELSE
      FOR t IN UPDATE colony.tasks x SET claim_id = NULL, updated_at = clock_timestamp(),
                 failed_by = CASE WHEN c.end_kind = 'released' AND NOT (c.agent = ANY (x.failed_by))
                                  THEN array_append(x.failed_by, c.agent) ELSE x.failed_by END
               WHERE x.claim_id = c.id AND x.run_id = p_run AND x.status = 'open'
               RETURNING x.id, x.scope LOOP
        INSERT INTO colony.events (run_id, agent, kind, data) VALUES (p_run, c.agent, 'task.reopened',
          jsonb_build_object('id', t.id, 'scope', t.scope, 'claimId', c.id, 'reason', c.end_kind,
                             'outcome', c.outcome));
      END LOOP;
    END IF;
  END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION colony.coord_expire(p_run text) RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  v_ids bigint[];
BEGIN
  WITH x AS (
    UPDATE colony.claims SET ended_at = clock_timestamp(), end_kind = 'expired'
    WHERE run_id = p_run AND ended_at IS NULL AND lease_until <= clock_timestamp()
    RETURNING id, agent, scope, (extract(epoch FROM ended_at - granted_at) * 1000)::bigint AS held_ms
  ), logged AS (
    INSERT INTO colony.events (run_id, agent, kind, data)
    SELECT p_run, agent, 'claim.expired',
           jsonb_build_object('claimId', id, 'scope', scope, 'holder', agent, 'heldMs', held_ms)
    FROM x ORDER BY id
  )
  SELECT array_agg(id ORDER BY id) INTO v_ids FROM x;
  IF v_ids IS NULL THEN
    RETURN 0;
  END IF;
  PERFORM colony.coord_tasks_claims_ended(p_run, v_ids);
  RETURN cardinality(v_ids);
END
$fn$;

CREATE OR REPLACE FUNCTION colony.coord_release(p_run text, p_agent text, p_kind text, p_key text, p_outcome text)
RETURNS TABLE (claim_id bigint, scope text) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_ids bigint[];
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('colony.claims:' || p_run, 0));
  PERFORM colony.coord_expire(p_run);
  WITH r AS (
    UPDATE colony.claims k SET ended_at = clock_timestamp(), end_kind = 'released', outcome = p_outcome
    WHERE k.run_id = p_run AND k.agent = p_agent AND k.ended_at IS NULL
      AND (p_kind IS NULL OR (k.scope_kind = p_kind AND k.scope_key = p_key))
    RETURNING k.id, k.scope
  ),
  logged AS (
    INSERT INTO colony.events (run_id, agent, kind, data)
    SELECT p_run, p_agent, 'claim.released', jsonb_build_object('claimId', r.id, 'scope', r.scope, 'outcome', p_outcome)
    FROM r ORDER BY r.id
  )
  SELECT array_agg(r.id ORDER BY r.id) INTO v_ids FROM r;
  IF v_ids IS NULL THEN
    RETURN;
  END IF;
  PERFORM colony.coord_tasks_claims_ended(p_run, v_ids);
  RETURN QUERY SELECT k.id, k.scope FROM colony.claims k WHERE k.id = ANY (v_ids) ORDER BY k.id;
END
$fn$;

-- Adds tasks in order (items: [{key, title, detail, scope, kind, scopeKey, after: [id | key]}]).
-- A key that exists is reported as existing. Predecessors must already exist (earlier calls or
-- earlier items), so no cycle can form; an unknown one refuses the whole call (P0001).
CREATE FUNCTION colony.coord_tasks_add(p_run text, p_agent text, p_items jsonb)
RETURNS TABLE (i integer, id bigint, existing boolean) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  item record;
  ref jsonb;
  v_id bigint;
  v_last bigint;
  v_status text;
  v_after bigint[];
  v_blocked integer;
  v_scope text;
  v_kind text;
  v_key text;
BEGIN
  -- The claims lock: ids in commit order, and blocked_by cannot miss a predecessor becoming done.
  PERFORM pg_advisory_xact_lock(hashtextextended('colony.claims:' || p_run, 0));
  SELECT coalesce(max(x.id), 0) INTO v_last FROM colony.tasks x WHERE x.run_id = p_run;
  FOR item IN SELECT e.x, e.n FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e(x, n) ORDER BY e.n LOOP
    SELECT x.id INTO v_id FROM colony.tasks x WHERE x.run_id = p_run AND x.dedupe_key = item.x->>'key';
    IF FOUND THEN
      i := item.n; id := v_id; existing := true;
      RETURN NEXT;
      CONTINUE;
    END IF;
    v_after := '{}';
    v_blocked := 0;
    FOR ref IN SELECT jsonb_array_elements(coalesce(item.x->'after', '[]'::jsonb)) LOOP
      v_id := NULL;
      IF jsonb_typeof(ref) = 'number' THEN
        SELECT x.id, x.status INTO v_id, v_status FROM colony.tasks x
        WHERE x.run_id = p_run AND x.id = (ref #>> '{}')::bigint;
      ELSE
        SELECT x.id, x.status INTO v_id, v_status FROM colony.tasks x
        WHERE x.run_id = p_run AND x.dedupe_key = ref #>> '{}';
        IF v_id IS NULL THEN
          SELECT x.id, x.status INTO v_id, v_status FROM colony.tasks x
          WHERE x.run_id = p_run AND x.scope = ref #>> '{}' ORDER BY x.id LIMIT 1;
        END IF;
      END IF;
      IF v_id IS NULL THEN
        RAISE EXCEPTION 'task % ("%"): predecessor % is not a task of this run; add predecessors before the tasks that need them',
          item.n, item.x->>'title', ref::text USING ERRCODE = 'P0001';
      END IF;
      IF NOT (v_id = ANY (v_after)) THEN
        v_after := v_after || v_id;
        IF v_status <> 'done' THEN
          v_blocked := v_blocked + 1;
        END IF;
      END IF;
    END LOOP;
    v_last := v_last + 1;
    v_scope := coalesce(item.x->>'scope', 'task:' || v_last);
    v_kind := coalesce(item.x->>'kind', 'task');
    v_key := coalesce(item.x->>'scopeKey', 'task:' || v_last);
    INSERT INTO colony.tasks (run_id, id, dedupe_key, title, detail, scope, scope_kind, scope_key, after_ids,
                              blocked_by, created_by)
    VALUES (p_run, v_last, item.x->>'key', item.x->>'title', item.x->>'detail', v_scope, v_kind, v_key, v_after,
            v_blocked, p_agent);
    INSERT INTO colony.events (run_id, agent, kind, data) VALUES (p_run, p_agent, 'task.added',
      jsonb_build_object('id', v_last, 'key', item.x->>'key', 'title', item.x->>'title', 'scope', v_scope,
                         'after', to_jsonb(v_after), 'hasDetail', item.x->>'detail' IS NOT NULL));
    i := item.n; id := v_last; existing := false;
    RETURN NEXT;
  END LOOP;
END
$fn$;

-- Grants the lowest-id ready task to the agent: open, every predecessor done, not held, its scope
-- free of every live claim, not released unfinished by this agent before. The grant is coord_claim's
-- (claim.granted, CLAIM entry, lease), in the same transaction and under the same lock. A peer keeps a
-- task's claim until its merge request has landed and takes the next task meanwhile (submit and move
-- on), so an agent may hold up to 4 open board tasks; at 4 it gets its oldest one back (lease renewed):
-- calling again and again never hoards more.
CREATE FUNCTION colony.coord_claim_next(p_run text, p_agent text, p_lease_ms integer)
RETURNS TABLE (status text, task_id bigint, title text, detail text, scope text, claim_id bigint, entry_id bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  t record;
  g record;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('colony.claims:' || p_run, 0));
  -- Lock order as coord_claim: the context head before any event (expiry writes events).
  INSERT INTO colony.context_heads AS h (run_id, last_id) VALUES (p_run, 0)
  ON CONFLICT (run_id) DO UPDATE SET last_id = h.last_id;
  PERFORM colony.coord_expire(p_run);
  SELECT x.id, x.title, x.detail, x.scope, k.id AS claim, count(*) OVER () AS held INTO t
  FROM colony.claims k JOIN colony.tasks x ON x.claim_id = k.id
  WHERE k.run_id = p_run AND k.agent = p_agent AND k.ended_at IS NULL AND x.status = 'open'
  ORDER BY x.id LIMIT 1;
  IF FOUND AND t.held >= 4 THEN
    UPDATE colony.claims k SET lease_until = clock_timestamp() + make_interval(secs => k.lease_ms / 1000.0)
    WHERE k.id = t.claim;
    RETURN QUERY SELECT 'existing'::text, t.id, t.title, t.detail, t.scope, t.claim, NULL::bigint;
    RETURN;
  END IF;
  FOR t IN SELECT x.id, x.title, x.detail, x.scope, x.scope_kind, x.scope_key FROM colony.tasks x
           WHERE x.run_id = p_run AND x.status = 'open' AND x.claim_id IS NULL AND x.blocked_by = 0
             AND NOT (p_agent = ANY (x.failed_by))
           ORDER BY x.id LOOP
    CONTINUE WHEN NOT colony.coord_scope_free(p_run, t.scope_kind, t.scope_key);
    SELECT * INTO g FROM colony.coord_claim(p_run, p_agent, t.scope, t.scope_kind, t.scope_key,
                                           left('task ' || t.id || ': ' || t.title, 200), p_lease_ms);
    -- Always 'granted' (the scope was free under this lock); skip rather than fail the batch.
    CONTINUE WHEN g.status <> 'granted';
    UPDATE colony.tasks x SET claim_id = g.claim_id, updated_at = clock_timestamp()
    WHERE x.run_id = p_run AND x.id = t.id;
    INSERT INTO colony.events (run_id, agent, kind, data) VALUES (p_run, p_agent, 'task.claimed',
      jsonb_build_object('id', t.id, 'scope', t.scope, 'claimId', g.claim_id));
    RETURN QUERY SELECT 'granted'::text, t.id, t.title, t.detail, t.scope, g.claim_id, g.entry_id;
    RETURN;
  END LOOP;
  RETURN QUERY SELECT 'none'::text, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::bigint, NULL::bigint;
END
$fn$;

-- Ready tasks for an agent (a snapshot, no lock: a suggestion, claim_next decides), nearest to
-- p_near (a path key) first, then by id.
CREATE FUNCTION colony.coord_tasks_ready(p_run text, p_agent text, p_near text, p_limit integer)
RETURNS TABLE (id bigint, title text, detail text, scope text, after_ids bigint[]) LANGUAGE sql STABLE AS $fn$
  SELECT x.id, x.title, x.detail, x.scope, x.after_ids FROM colony.tasks x
  WHERE x.run_id = p_run AND x.status = 'open' AND x.claim_id IS NULL AND x.blocked_by = 0
    AND NOT (p_agent = ANY (x.failed_by)) AND colony.coord_scope_free(p_run, x.scope_kind, x.scope_key)
  ORDER BY CASE WHEN p_near IS NULL OR x.scope_kind <> 'path' THEN 0
                ELSE -colony.coord_shared_prefix(x.scope_key, p_near) END, x.id
  LIMIT p_limit
$fn$;

-- The board as one agent sees it. Open tasks split into ready (for this agent), blocked (a
-- predecessor not done), claimed (held, or its scope overlaps a live claim) and failed_by_you.
CREATE FUNCTION colony.coord_task_counts(p_run text, p_agent text)
RETURNS TABLE (n_total bigint, n_open bigint, n_ready bigint, n_blocked bigint, n_claimed bigint,
               n_failed_by_you bigint, n_done bigint, n_dropped bigint)
LANGUAGE sql STABLE AS $fn$
  SELECT count(*),
         count(*) FILTER (WHERE s.status = 'open'),
         count(*) FILTER (WHERE s.status = 'open' AND s.blocked_by = 0 AND NOT s.linked AND NOT s.failed AND s.free),
         count(*) FILTER (WHERE s.status = 'open' AND s.blocked_by > 0),
         count(*) FILTER (WHERE s.status = 'open' AND s.blocked_by = 0 AND (s.linked OR (NOT s.failed AND NOT s.free))),
         count(*) FILTER (WHERE s.status = 'open' AND s.blocked_by = 0 AND NOT s.linked AND s.failed),
         count(*) FILTER (WHERE s.status = 'done'),
         count(*) FILTER (WHERE s.status = 'dropped')
  FROM (
    SELECT x.status, x.blocked_by, x.claim_id IS NOT NULL AS linked, p_agent = ANY (x.failed_by) AS failed,
           CASE WHEN x.status = 'open' AND x.blocked_by = 0 AND x.claim_id IS NULL
                THEN colony.coord_scope_free(p_run, x.scope_kind, x.scope_key) ELSE false END AS free
    FROM colony.tasks x WHERE x.run_id = p_run
  ) s
$fn$;
`,
  // Grants are run again for a role made later (regrant), so they name only functions that still
  // exist: coord_tasks_add(text, text, jsonb) was replaced by migration 009, which grants its own.
  grants: `
REVOKE DELETE, TRUNCATE ON colony.tasks FROM colony_app;
GRANT SELECT, INSERT, UPDATE ON colony.tasks TO colony_app;
GRANT EXECUTE ON FUNCTION colony.coord_key_prefixes(text), colony.coord_scope_free(text, text, text),
  colony.coord_outcome_done(text), colony.coord_shared_prefix(text, text),
  colony.coord_tasks_claims_ended(text, bigint[]),
  colony.coord_claim_next(text, text, integer), colony.coord_tasks_ready(text, text, text, integer),
  colony.coord_task_counts(text, text) TO colony_app;
`,
};
