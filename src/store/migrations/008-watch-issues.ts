import type { Migration } from '../migration-types.js';

/**
 * `colony watch` (src/watch/): which issue of which forge repository became which run. The row is
 * written BEFORE the run is started, with the run id the run will have (`colony run --run-id`), so a
 * watch killed at any point and started again finds every issue it took: it never takes one twice,
 * and a run started twice under the same id fails on `colony.runs`' key. `started_commented` and
 * `finished_at` say how far the watch got (the issue comments carry a marker too, so a comment posted
 * just before a kill is not posted again). A row is deleted only when its run provably never
 * started (the `colony run` this watch started for it ended before recording it).
 */
export const migration008: Migration = {
  version: 8,
  name: 'watch-issues',
  sql: `
CREATE TABLE IF NOT EXISTS colony.watch_issues (
  api_base text NOT NULL,
  repo text NOT NULL,
  issue integer NOT NULL,
  forge text NOT NULL,
  run_id text NOT NULL UNIQUE,
  goal text NOT NULL,
  started_commented boolean NOT NULL DEFAULT false,
  outcome text,
  taken_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  PRIMARY KEY (api_base, repo, issue)
);
`,
  grants: `GRANT SELECT, INSERT, UPDATE, DELETE ON colony.watch_issues TO colony_app;`,
};
