import type { Migration } from '../migration-types.js';

/**
 * One agent's events, or the events of some kinds, in seq order without scanning the run's: every
 * subagent task and every worker session reads its agent's history on start (`log.read(run, { agent
 * })`), and workers read the lead's `subagent.created`/`task.assigned` as they come. With only the
 * primary key (run_id, seq) those reads walked the whole run — 4.6 ms per task at 1,000 tasks and
 * growing with the run, so a fan-out of N tasks cost Postgres O(N²) (bench/README § fleet).
 */
export const migration007: Migration = {
  version: 7,
  name: 'event-agent-index',
  sql: `
CREATE INDEX IF NOT EXISTS events_run_agent_seq ON colony.events (run_id, agent, seq);
CREATE INDEX IF NOT EXISTS events_run_kind_seq ON colony.events (run_id, kind, seq);
`,
};
