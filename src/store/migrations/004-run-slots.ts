import type { Migration } from '../migration-types.js';

/**
 * Per-server run slots (src/run/run-slots.ts). A slot is owned through a session advisory lock held
 * on the owner's dedicated connection, so a dead process's slot frees itself; this table only says who
 * holds which slot (for messages and listings), and a row counts only while its lock is held.
 */
export const migration004: Migration = {
  version: 4,
  name: 'run-slots',
  sql: `
CREATE TABLE IF NOT EXISTS colony.run_slots (
  scope text NOT NULL,
  slot integer NOT NULL,
  run_id text NOT NULL,
  pid integer NOT NULL,
  host text NOT NULL,
  acquired_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, slot)
);
`,
  grants: `GRANT SELECT, INSERT, UPDATE, DELETE ON colony.run_slots TO colony_app;`,
};
