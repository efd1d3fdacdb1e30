import type { Migration } from '../migration-types.js';

/**
 * Makes multi-row inserts linear. In 001 every row upserted and then updated its run's head, so a
 * 1,000-row batch for one run built a chain of ~2,000 row versions of the same head inside one
 * transaction, and each lookup walked it (quadratic). Now only the first row of a run in a transaction
 * takes the head (upsert: row lock + seq); following rows continue from a transaction-local cache
 * (two custom settings set with is_local, so a rollback, also to a savepoint, reverts them together
 * with the rows), and an AFTER STATEMENT trigger writes each run's final seq and hash back to
 * run_heads once. Same columns, same hash definition, same guarantees.
 */
export const migration002: Migration = {
  version: 2,
  name: 'chain-cache',
  sql: `
CREATE OR REPLACE FUNCTION colony.events_assign() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $fn$
DECLARE
  v_key text := txid_current()::text || ':' || NEW.run_id;
  v_head text;
  v_seq bigint;
  v_prev text;
BEGIN
  IF current_setting('colony.head_key', true) IS NOT DISTINCT FROM v_key THEN
    -- This transaction already holds the run's head row lock; continue from the cached head.
    v_head := current_setting('colony.head', true);
    v_seq := split_part(v_head, ':', 1)::bigint + 1;
    v_prev := split_part(v_head, ':', 2);
  ELSE
    INSERT INTO colony.run_heads AS h (run_id, last_seq, last_hash)
    VALUES (NEW.run_id, 1, '0000000000000000000000000000000000000000000000000000000000000000')
    ON CONFLICT (run_id) DO UPDATE SET last_seq = h.last_seq + 1
    RETURNING h.last_seq, h.last_hash INTO v_seq, v_prev;
  END IF;
  NEW.seq := v_seq;
  NEW.ts := clock_timestamp();
  NEW.prev_hash := v_prev;
  NEW.hash := colony.event_hash(v_prev, NEW.run_id, v_seq, NEW.agent, NEW.kind, NEW.ts, NEW.data);
  PERFORM set_config('colony.head_key', v_key, true), set_config('colony.head', v_seq::text || ':' || NEW.hash, true);
  RETURN NEW;
END
$fn$;

CREATE FUNCTION colony.events_heads() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $fn$
BEGIN
  UPDATE colony.run_heads h SET last_seq = m.seq, last_hash = m.hash
  FROM (SELECT DISTINCT ON (run_id) run_id, seq, hash FROM new_rows ORDER BY run_id, seq DESC) m
  WHERE h.run_id = m.run_id;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER events_heads AFTER INSERT ON colony.events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION colony.events_heads();
`,
};
