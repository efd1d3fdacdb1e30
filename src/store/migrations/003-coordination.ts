import type { Migration } from '../migration-types.js';

/**
 * Coordination (docs/coordination.md): the shared context, messages and claims. These tables are
 * projections and indices; every fact is also an event in colony.events, written in the same
 * transaction. Ids of context entries and messages are per run and allocated under a row lock on
 * the run's head row (context_heads / message_heads), so ids are committed in increasing order: a
 * reader that sees id N also sees every id below N. That is what lets a read cursor be a low-water
 * mark.
 */
export const migration003: Migration = {
  version: 3,
  name: 'coordination',
  sql: `
CREATE FUNCTION colony.append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'colony.% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END
$fn$;

CREATE TABLE colony.context_heads (
  run_id text PRIMARY KEY,
  last_id bigint NOT NULL
);

CREATE TABLE colony.context_entries (
  run_id text NOT NULL,
  id bigint NOT NULL,
  author text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('OBSERVED', 'FACT', 'FAIL', 'CLAIM', 'PATCH')),
  summary text NOT NULL CHECK (char_length(summary) BETWEEN 1 AND 200),
  detail text,
  scope text[],
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, id)
);
CREATE TRIGGER context_entries_append_only BEFORE UPDATE OR DELETE ON colony.context_entries
  FOR EACH ROW EXECUTE FUNCTION colony.append_only();
CREATE TRIGGER context_entries_no_truncate BEFORE TRUNCATE ON colony.context_entries
  FOR EACH STATEMENT EXECUTE FUNCTION colony.append_only();

-- Read state per agent: every entry with id <= low is read; read marks hold the read entries above
-- low (entries returned out of order: FAIL first, or by a filter). Marks at or below low are deleted.
CREATE TABLE colony.context_cursors (
  run_id text NOT NULL,
  agent text NOT NULL,
  low bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, agent)
);
CREATE TABLE colony.context_reads (
  run_id text NOT NULL,
  agent text NOT NULL,
  entry_id bigint NOT NULL,
  PRIMARY KEY (run_id, agent, entry_id)
);

CREATE TABLE colony.message_heads (
  run_id text PRIMARY KEY,
  last_id bigint NOT NULL
);
CREATE TABLE colony.messages (
  run_id text NOT NULL,
  id bigint NOT NULL,
  sender text NOT NULL,
  recipient text,
  channel text,
  text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, id),
  CHECK ((recipient IS NULL) <> (channel IS NULL))
);
CREATE INDEX messages_direct ON colony.messages (run_id, recipient, id) WHERE recipient IS NOT NULL;
CREATE INDEX messages_channel ON colony.messages (run_id, id) WHERE channel IS NOT NULL;
CREATE TRIGGER messages_append_only BEFORE UPDATE OR DELETE ON colony.messages
  FOR EACH ROW EXECUTE FUNCTION colony.append_only();
CREATE TRIGGER messages_no_truncate BEFORE TRUNCATE ON colony.messages
  FOR EACH STATEMENT EXECUTE FUNCTION colony.append_only();

-- Direct and channel messages are each read in id order, completely, so a low-water mark each is
-- the whole read state.
CREATE TABLE colony.message_cursors (
  run_id text NOT NULL,
  agent text NOT NULL,
  direct_low bigint NOT NULL DEFAULT 0,
  channel_low bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, agent)
);
-- Members of named channels (everyone is in "all"); a member receives messages after joined_after.
CREATE TABLE colony.channel_members (
  run_id text NOT NULL,
  agent text NOT NULL,
  channel text NOT NULL,
  joined_after bigint NOT NULL,
  PRIMARY KEY (run_id, agent, channel)
);

-- A claim is held while ended_at IS NULL. lease_until is renewed by the holder's heartbeat; a lapsed
-- lease ends (end_kind 'expired', event claim.expired) the next time anyone touches the run's claims.
CREATE TABLE colony.claims (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id text NOT NULL,
  agent text NOT NULL,
  scope text NOT NULL,
  scope_kind text NOT NULL CHECK (scope_kind IN ('path', 'task')),
  scope_key text NOT NULL,
  summary text NOT NULL,
  lease_ms integer NOT NULL,
  granted_at timestamptz NOT NULL,
  lease_until timestamptz NOT NULL,
  ended_at timestamptz,
  end_kind text CHECK (end_kind IN ('released', 'expired')),
  outcome text
);
CREATE INDEX claims_held ON colony.claims (run_id, agent) WHERE ended_at IS NULL;
CREATE INDEX claims_lease ON colony.claims (lease_until) WHERE ended_at IS NULL;

-- Claims are changed only by these functions. Each takes the run's claims lock (a transaction-scoped
-- advisory lock), so across processes grants are serialised per run, and, called as one statement,
-- holds it only while the function runs (commit follows at once). Each first ends lapsed leases
-- (claim.expired, exactly once). Events go to colony.events in the same transaction, so the log's
-- order is the order claims changed hands.
CREATE FUNCTION colony.coord_expire(p_run text) RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  n integer;
BEGIN
  WITH x AS (
    UPDATE colony.claims SET ended_at = clock_timestamp(), end_kind = 'expired'
    WHERE run_id = p_run AND ended_at IS NULL AND lease_until <= clock_timestamp()
    RETURNING id, agent, scope, (extract(epoch FROM ended_at - granted_at) * 1000)::bigint AS held_ms
  )
  INSERT INTO colony.events (run_id, agent, kind, data)
  SELECT p_run, agent, 'claim.expired',
         jsonb_build_object('claimId', id, 'scope', scope, 'holder', agent, 'heldMs', held_ms)
  FROM x ORDER BY id;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$fn$;

CREATE FUNCTION colony.coord_sweep(p_run text) RETURNS integer LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('colony.claims:' || p_run, 0));
  RETURN colony.coord_expire(p_run);
END
$fn$;

CREATE FUNCTION colony.coord_claim(p_run text, p_agent text, p_scope text, p_kind text, p_key text,
                                   p_summary text, p_lease_ms integer)
RETURNS TABLE (status text, claim_id bigint, scope text, holder text, summary text, held_ms bigint,
               entry_id bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  c record;
  v_claim bigint;
  v_entry bigint;
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
  SELECT k.id, k.agent, k.scope, k.summary,
         (extract(epoch FROM clock_timestamp() - k.granted_at) * 1000)::bigint AS held_ms
  INTO c FROM colony.claims k
  WHERE k.run_id = p_run AND k.ended_at IS NULL AND k.scope_kind = p_kind AND k.agent <> p_agent
    AND CASE WHEN p_kind = 'task' THEN k.scope_key = p_key
             ELSE starts_with(k.scope_key, p_key) OR starts_with(p_key, k.scope_key) END
  ORDER BY k.id LIMIT 1;
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

-- Releases the agent's held claims on one scope (p_kind/p_key) or all of them (p_kind NULL).
CREATE FUNCTION colony.coord_release(p_run text, p_agent text, p_kind text, p_key text, p_outcome text)
RETURNS TABLE (claim_id bigint, scope text) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('colony.claims:' || p_run, 0));
  PERFORM colony.coord_expire(p_run);
  RETURN QUERY
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
  SELECT r.id, r.scope FROM r ORDER BY r.id;
END
$fn$;
`,
  grants: `
GRANT SELECT, INSERT, UPDATE ON colony.context_heads TO colony_app;
REVOKE UPDATE, DELETE, TRUNCATE ON colony.context_entries FROM colony_app;
GRANT SELECT, INSERT ON colony.context_entries TO colony_app;
GRANT SELECT, INSERT, UPDATE ON colony.context_cursors TO colony_app;
REVOKE UPDATE ON colony.context_reads FROM colony_app;
GRANT SELECT, INSERT, DELETE ON colony.context_reads TO colony_app;
GRANT SELECT, INSERT, UPDATE ON colony.message_heads TO colony_app;
REVOKE UPDATE, DELETE, TRUNCATE ON colony.messages FROM colony_app;
GRANT SELECT, INSERT ON colony.messages TO colony_app;
GRANT SELECT, INSERT, UPDATE ON colony.message_cursors TO colony_app;
REVOKE UPDATE, DELETE ON colony.channel_members FROM colony_app;
GRANT SELECT, INSERT ON colony.channel_members TO colony_app;
REVOKE DELETE, TRUNCATE ON colony.claims FROM colony_app;
GRANT SELECT, INSERT, UPDATE ON colony.claims TO colony_app;
GRANT EXECUTE ON FUNCTION colony.coord_expire(text), colony.coord_sweep(text),
  colony.coord_claim(text, text, text, text, text, text, integer),
  colony.coord_release(text, text, text, text, text) TO colony_app;
`,
};
