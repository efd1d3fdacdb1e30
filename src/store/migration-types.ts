/** A versioned schema change. SQL lives in TS strings so the tsc build ships it with the code. */
export interface Migration {
  version: number;
  name: string;
  /** Runs as the migrating (owner/superuser) role, in one transaction. */
  sql: string;
  /** Privileges for the `colony_app` role; run only when that role exists. Must be idempotent. */
  grants?: string;
}
