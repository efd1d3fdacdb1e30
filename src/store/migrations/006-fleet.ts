import type { Migration } from '../migration-types.js';

/**
 * The fleet (src/fleet/, docs/fleet.md): workers that execute agents of runs asking for them.
 * Dispatch itself is DBOS's (its queue rows in the `dbos` schema); these tables are what DBOS does not
 * do for us: which workers are alive (heartbeats), which worker holds an agent's session and under
 * which epoch (fencing: a worker that lost a session to another cannot write for it again), and per
 * fleet run its hub address, token secret and stop flag.
 */
export const migration006: Migration = {
  version: 6,
  name: 'fleet',
  sql: `
CREATE TABLE IF NOT EXISTS colony.fleet_workers (
  name text PRIMARY KEY,
  host text NOT NULL,
  pid integer NOT NULL,
  slots integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  -- Set when the worker stopped cleanly or was found dead (its sessions were re-enqueued).
  gone_at timestamptz,
  gone_reason text
);
CREATE TABLE IF NOT EXISTS colony.fleet_runs (
  run_id text PRIMARY KEY,
  hub_url text NOT NULL,
  token_secret bytea NOT NULL,
  -- Set by the run's owner when the run ends: workers stop its sessions. stop_status is the run's end
  -- (succeeded: its goal was met, so its agents end done, as in-process).
  stop_reason text,
  stop_status text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS colony.fleet_sessions (
  run_id text NOT NULL,
  agent text NOT NULL,
  epoch integer NOT NULL,
  worker text NOT NULL,
  -- The DBOS workflow of the session (a peer's whole life, or one task of a subagent): the same
  -- session taken again is a takeover; a subagent's next task is a new session of the same agent.
  session text NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, agent)
);
CREATE INDEX IF NOT EXISTS fleet_sessions_worker ON colony.fleet_sessions (worker);
`,
  grants: `GRANT SELECT, INSERT, UPDATE, DELETE ON colony.fleet_workers, colony.fleet_runs, colony.fleet_sessions TO colony_app;`,
};
