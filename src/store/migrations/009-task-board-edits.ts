import type { Migration } from '../migration-types.js';

/**
 * The task board edited by a person (the dashboard, docs/coordination.md § Task board): a board order
 * and edits of open tasks.
 *
 * - `rank`: the board's order. claim_next grants the ready task of lowest (rank, id), and tasks_ready
 *   lists them in that order. A new task goes last (max rank + 1); existing tasks get rank = id, so an
 *   untouched board keeps its old order (lowest id first). Ranks stay unique: a move shifts the ranks
 *   at and after the new place by one (a person's move; boards are thousands of tasks at most).
 * - coord_tasks_add takes who added the tasks when it is not an agent (`p_by`, with `p_agent` null):
 *   its task.added event then has no agent (a person is not an agent of the run) and `by`.
 * - coord_task_edit: title, detail, scope and place of an open task, under the claims lock, with a
 *   task.edited event. A task someone holds keeps its title, detail and scope (the holder works from
 *   what it read); a done task is never taken again and cannot change at all.
 */
export const migration009: Migration = {
  version: 9,
  name: 'task-board-edits',
  sql: `
ALTER TABLE colony.tasks ADD COLUMN rank bigint;
UPDATE colony.tasks SET rank = id;
ALTER TABLE colony.tasks ALTER COLUMN rank SET NOT NULL;
CREATE INDEX tasks_ready_rank ON colony.tasks (run_id, rank, id)
  WHERE status = 'open' AND claim_id IS NULL AND blocked_by = 0;
DROP INDEX colony.tasks_ready;

DROP FUNCTION colony.coord_tasks_add(text, text, jsonb);

-- coord_tasks_add of migration 005, with a rank for each new task (last on the board) and p_by: a
-- person's tasks (p_agent null) are logged without an agent, with by.
CREATE FUNCTION colony.coord_tasks_add(p_run text, p_agent text, p_items jsonb, p_by text DEFAULT NULL)
RETURNS TABLE (i integer, id bigint, existing boolean) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  item record;
  ref jsonb;
  v_id bigint;
  v_last bigint;
  v_rank bigint;
  v_status text;
  v_after bigint[];
  v_blocked integer;
  v_scope text;
  v_kind text;
  v_key text;
BEGIN
  -- The claims lock: ids in commit order, and blocked_by cannot miss a predecessor becoming done.
  PERFORM pg_advisory_xact_lock(hashtextextended('colony.claims:' || p_run, 0));
  SELECT coalesce(max(x.id), 0), coalesce(max(x.rank), 0) INTO v_last, v_rank FROM colony.tasks x WHERE x.run_id = p_run;
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
    v_rank := v_rank + 1;
    v_scope := coalesce(item.x->>'scope', 'task:' || v_last);
    v_kind := coalesce(item.x->>'kind', 'task');
    v_key := coalesce(item.x->>'scopeKey', 'task:' || v_last);
    INSERT INTO colony.tasks (run_id, id, dedupe_key, title, detail, scope, scope_kind, scope_key, after_ids,
                              blocked_by, created_by, rank)
    VALUES (p_run, v_last, item.x->>'key', item.x->>'title', item.x->>'detail', v_scope, v_kind, v_key, v_after,
            v_blocked, coalesce(p_agent, p_by, 'user'), v_rank);
    INSERT INTO colony.events (run_id, agent, kind, data) VALUES (p_run, p_agent, 'task.added',
      jsonb_build_object('id', v_last, 'key', item.x->>'key', 'title', item.x->>'title', 'scope', v_scope,
                         'after', to_jsonb(v_after), 'hasDetail', item.x->>'detail' IS NOT NULL)
      || CASE WHEN p_agent IS NULL THEN jsonb_build_object('by', coalesce(p_by, 'user')) ELSE '{}'::jsonb END);
    i := item.n; id := v_last; existing := false;
    RETURN NEXT;
  END LOOP;
END
$fn$;

-- coord_claim_next of migration 005, taking the ready task of lowest (rank, id) instead of lowest id.
CREATE OR REPLACE FUNCTION colony.coord_claim_next(p_run text, p_agent text, p_lease_ms integer)
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
           ORDER BY x.rank, x.id LOOP
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

-- coord_tasks_ready of migration 005, in board order (rank, id) after nearness.
CREATE OR REPLACE FUNCTION colony.coord_tasks_ready(p_run text, p_agent text, p_near text, p_limit integer)
RETURNS TABLE (id bigint, title text, detail text, scope text, after_ids bigint[]) LANGUAGE sql STABLE AS $fn$
  SELECT x.id, x.title, x.detail, x.scope, x.after_ids FROM colony.tasks x
  WHERE x.run_id = p_run AND x.status = 'open' AND x.claim_id IS NULL AND x.blocked_by = 0
    AND NOT (p_agent = ANY (x.failed_by)) AND colony.coord_scope_free(p_run, x.scope_kind, x.scope_key)
  ORDER BY CASE WHEN p_near IS NULL OR x.scope_kind <> 'path' THEN 0
                ELSE -colony.coord_shared_prefix(x.scope_key, p_near) END, x.rank, x.id
  LIMIT p_limit
$fn$;

-- A person edits an open task (p_edit: {title?, detail? (null clears it), scope?, kind?, scopeKey?
-- (scope null: task:<id>), before? | after? (a task id: the place on the board)}). Returns the
-- outcome ('ok', 'unchanged', 'not_found', 'closed', 'held', 'bad') and a message saying why.
CREATE FUNCTION colony.coord_task_edit(p_run text, p_id bigint, p_by text, p_edit jsonb)
RETURNS TABLE (outcome text, message text) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  t record;
  v_holder text;
  v_changed text[] := '{}';
  v_place text;
  v_ref bigint;
  v_rank bigint;
  v_scope text;
  v_kind text;
  v_key text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('colony.claims:' || p_run, 0));
  INSERT INTO colony.context_heads AS h (run_id, last_id) VALUES (p_run, 0)
  ON CONFLICT (run_id) DO UPDATE SET last_id = h.last_id;
  -- A lapsed lease no longer holds the task: settle it first, as claim_next would.
  PERFORM colony.coord_expire(p_run);
  SELECT x.* INTO t FROM colony.tasks x WHERE x.run_id = p_run AND x.id = p_id;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'not_found'::text, format('run %s has no task %s', p_run, p_id);
    RETURN;
  END IF;
  IF t.status <> 'open' THEN
    RETURN QUERY SELECT 'closed'::text,
      format('task %s is %s: it is never taken again, so it cannot be edited or moved (add a new task instead)',
             p_id, t.status);
    RETURN;
  END IF;
  IF (p_edit ? 'title' OR p_edit ? 'detail' OR p_edit ? 'scope') AND t.claim_id IS NOT NULL THEN
    SELECT k.agent INTO v_holder FROM colony.claims k WHERE k.id = t.claim_id;
    RETURN QUERY SELECT 'held'::text,
      format('task %s is held by %s (claim %s): its title, detail and scope cannot change while it is worked '
             'on (the holder works from what it read). Send %s a message, or add a new task; moving it is allowed',
             p_id, coalesce(v_holder, '?'), t.claim_id, coalesce(v_holder, 'the holder'));
    RETURN;
  END IF;
  IF p_edit ? 'before' OR p_edit ? 'after' THEN
    v_place := CASE WHEN p_edit ? 'before' THEN 'before' ELSE 'after' END;
    v_ref := (p_edit->>v_place)::bigint;
    IF v_ref = p_id THEN
      RETURN QUERY SELECT 'bad'::text, format('task %s cannot be placed %s itself', p_id, v_place);
      RETURN;
    END IF;
    SELECT x.rank INTO v_rank FROM colony.tasks x WHERE x.run_id = p_run AND x.id = v_ref;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'bad'::text, format('%s: run %s has no task %s', v_place, p_run, v_ref);
      RETURN;
    END IF;
  END IF;
  IF p_edit ? 'title' AND (p_edit->>'title') IS DISTINCT FROM t.title THEN
    UPDATE colony.tasks x SET title = p_edit->>'title' WHERE x.run_id = p_run AND x.id = p_id;
    v_changed := v_changed || 'title'::text;
  END IF;
  IF p_edit ? 'detail' AND (p_edit->>'detail') IS DISTINCT FROM t.detail THEN
    UPDATE colony.tasks x SET detail = p_edit->>'detail' WHERE x.run_id = p_run AND x.id = p_id;
    v_changed := v_changed || 'detail'::text;
  END IF;
  IF p_edit ? 'scope' THEN
    v_scope := coalesce(p_edit->>'scope', 'task:' || p_id);
    v_kind := coalesce(p_edit->>'kind', 'task');
    v_key := coalesce(p_edit->>'scopeKey', 'task:' || p_id);
    IF v_scope IS DISTINCT FROM t.scope THEN
      UPDATE colony.tasks x SET scope = v_scope, scope_kind = v_kind, scope_key = v_key
      WHERE x.run_id = p_run AND x.id = p_id;
      v_changed := v_changed || 'scope'::text;
    END IF;
  END IF;
  IF v_place IS NOT NULL THEN
    IF v_place = 'after' THEN
      v_rank := v_rank + 1;
    END IF;
    IF t.rank <> v_rank THEN
      UPDATE colony.tasks x SET rank = x.rank + 1 WHERE x.run_id = p_run AND x.rank >= v_rank AND x.id <> p_id;
      UPDATE colony.tasks x SET rank = v_rank WHERE x.run_id = p_run AND x.id = p_id;
      v_changed := v_changed || 'order'::text;
    END IF;
  END IF;
  IF cardinality(v_changed) = 0 THEN
    RETURN QUERY SELECT 'unchanged'::text, format('task %s: nothing changed', p_id);
    RETURN;
  END IF;
  UPDATE colony.tasks x SET updated_at = clock_timestamp() WHERE x.run_id = p_run AND x.id = p_id
  RETURNING x.* INTO t;
  INSERT INTO colony.events (run_id, agent, kind, data) VALUES (p_run, NULL, 'task.edited',
    jsonb_build_object('id', p_id, 'by', p_by, 'changed', to_jsonb(v_changed), 'title', t.title,
                       'scope', t.scope, 'hasDetail', t.detail IS NOT NULL)
    || CASE WHEN 'order' = ANY (v_changed) THEN jsonb_build_object(v_place, v_ref) ELSE '{}'::jsonb END);
  RETURN QUERY SELECT 'ok'::text, format('task %s: %s changed', p_id, array_to_string(v_changed, ', '));
END
$fn$;
`,
  grants: `
GRANT EXECUTE ON FUNCTION colony.coord_tasks_add(text, text, jsonb, text),
  colony.coord_task_edit(text, bigint, text, jsonb) TO colony_app;
`,
};
