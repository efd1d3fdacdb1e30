import type { Migration } from '../migration-types.js';

/**
 * Every path a run's claims ever named (held or ended), for free-form claims' conflict suggestions
 * (coord/nearby-paths.ts): without it each batch of conflicts scanned the claims of every run.
 */
export const migration010: Migration = {
  version: 10,
  name: 'claims-scope-index',
  sql: `
CREATE INDEX IF NOT EXISTS claims_run_scope ON colony.claims (run_id, scope_kind, scope_key);
`,
};
