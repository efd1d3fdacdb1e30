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
`,
};
