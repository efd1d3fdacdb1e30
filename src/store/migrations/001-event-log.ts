import type { Migration } from '../migration-types.js';

/**
 * Runs, the append-only event log with its database-assigned gap-free sequence and hash chain, and
 * the guard that refuses UPDATE/DELETE/TRUNCATE of events. Hash definition: docs/storage.md.
 */
export const migration001: Migration = {
  version: 1,
  name: 'event-log',
  sql: `
CREATE TABLE colony.runs (
  run_id text PRIMARY KEY,
  topology text NOT NULL,
  goal text NOT NULL,
  repo text NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  finished_at timestamptz,
  pid integer,
  host text,
  config jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX runs_created_at ON colony.runs (created_at DESC);

CREATE TABLE colony.run_heads (
  run_id text PRIMARY KEY,
  last_seq bigint NOT NULL,
  last_hash text NOT NULL
);

CREATE TABLE colony.events (
  run_id text NOT NULL,
  seq bigint NOT NULL,
  ts timestamptz NOT NULL,
  agent text,
  kind text NOT NULL,
  data jsonb NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (run_id, seq)
);

-- The canonical text of a row: fields on separate lines, strings JSON-quoted (so no field can run
-- into the next), the timestamp as integer microseconds since the epoch, data as Postgres prints jsonb.
CREATE FUNCTION colony.event_hash(p_prev text, p_run text, p_seq bigint, p_agent text, p_kind text,
                                  p_ts timestamptz, p_data jsonb)
RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
  SELECT encode(sha256(convert_to(
    p_prev || E'\\n' || to_json(p_run)::text || E'\\n' || p_seq::text || E'\\n'
    || coalesce(to_json(p_agent)::text, 'null') || E'\\n' || to_json(p_kind)::text || E'\\n'
    || ((extract(epoch FROM p_ts) * 1000000)::bigint)::text || E'\\n' || p_data::text,
    'UTF8')), 'hex')
$fn$;

-- Assigns seq, ts, prev_hash and hash. The upsert on run_heads row-locks the run's head, which
-- serialises writers of the same run; a rollback undoes both the head and the row, so no gaps.
-- SECURITY DEFINER: the application role needs no write access to run_heads.
CREATE FUNCTION colony.events_assign() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $fn$
DECLARE
  v_seq bigint;
  v_prev text;
BEGIN
  INSERT INTO colony.run_heads AS h (run_id, last_seq, last_hash)
  VALUES (NEW.run_id, 1, '0000000000000000000000000000000000000000000000000000000000000000')
  ON CONFLICT (run_id) DO UPDATE SET last_seq = h.last_seq + 1
  RETURNING h.last_seq, h.last_hash INTO v_seq, v_prev;
  NEW.seq := v_seq;
  NEW.ts := clock_timestamp();
  NEW.prev_hash := v_prev;
  NEW.hash := colony.event_hash(v_prev, NEW.run_id, v_seq, NEW.agent, NEW.kind, NEW.ts, NEW.data);
  UPDATE colony.run_heads SET last_hash = NEW.hash WHERE run_id = NEW.run_id;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER events_assign BEFORE INSERT ON colony.events
  FOR EACH ROW EXECUTE FUNCTION colony.events_assign();

CREATE FUNCTION colony.events_immutable() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'colony.events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$fn$;
CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON colony.events
  FOR EACH ROW EXECUTE FUNCTION colony.events_immutable();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON colony.events
  FOR EACH STATEMENT EXECUTE FUNCTION colony.events_immutable();
`,
  grants: `
GRANT USAGE ON SCHEMA colony TO colony_app;
GRANT SELECT ON colony.colony_migrations TO colony_app;
GRANT SELECT, INSERT ON colony.events TO colony_app;
GRANT SELECT ON colony.run_heads TO colony_app;
GRANT SELECT, INSERT, UPDATE ON colony.runs TO colony_app;
GRANT EXECUTE ON FUNCTION colony.event_hash(text, text, bigint, text, text, timestamptz, jsonb) TO colony_app;
-- Tables added by later migrations get full DML for the app by default; an append-only table must
-- REVOKE UPDATE, DELETE explicitly, as events does by never being granted them.
ALTER DEFAULT PRIVILEGES IN SCHEMA colony GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO colony_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA colony GRANT USAGE, SELECT ON SEQUENCES TO colony_app;
`,
};
