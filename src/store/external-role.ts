import pg from 'pg';
import { APP_ROLE } from './embedded-paths.js';

/**
 * With an external COLONY_DATABASE_URL we cannot choose how the app logs in, but we can still drop
 * its privileges: create `colony_app` NOLOGIN (if this user may), grant it to the URL's user, and
 * open app connections with `-c role=colony_app`. Otherwise the app keeps the URL's role.
 */
export interface AppRoleSetup {
  /** colony_app exists (grants can be applied). */
  exists: boolean;
  /**
   * Created just now, or found without its grants (an admin created it after the database was first
   * migrated without it): re-apply every migration's grants.
   */
  created: boolean;
}

export async function ensureExternalAppRole(client: pg.ClientBase): Promise<AppRoleSetup> {
  const found = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APP_ROLE]);
  let created = false;
  if (found.rowCount === 0) {
    try {
      await client.query(`CREATE ROLE ${APP_ROLE} NOLOGIN`);
      created = true;
    } catch (err) {
      const code = (err as { code?: string }).code;
      // 42710/23505: another process created it first; anything else: not allowed to create roles.
      if (code !== '42710' && code !== '23505') return { exists: false, created: false };
    }
  }
  try {
    const member = await client.query<{ m: boolean }>(`SELECT pg_has_role(current_user, $1, 'MEMBER') AS m`, [
      APP_ROLE,
    ]);
    if (!member.rows[0]?.m) await client.query(`GRANT ${APP_ROLE} TO current_user`);
  } catch {
    // Not allowed to grant it to ourselves; the app pool probe below falls back.
  }
  // An admin may have created colony_app after the database was migrated without it: grant now.
  const ungranted = await client.query<{ missing: boolean }>(
    `SELECT to_regnamespace('colony') IS NOT NULL AND NOT has_schema_privilege($1, 'colony', 'USAGE') AS missing`,
    [APP_ROLE],
  );
  return { exists: true, created: created || ungranted.rows[0]?.missing === true };
}

/** Connection config for app connections, or the plain URL with a warning if the role switch fails. */
export async function appConnection(url: string, say: (line: string) => void): Promise<pg.ClientConfig> {
  const withRole: pg.ClientConfig = { connectionString: url, options: `-c role=${APP_ROLE}` };
  const probe = new pg.Client(withRole);
  probe.on('error', () => {});
  try {
    await probe.connect();
    const res = await probe.query<{ u: string }>('SELECT current_user AS u');
    if (res.rows[0]?.u === APP_ROLE) return withRole;
  } catch {
    // Fall through to the warning.
  } finally {
    await probe.end().catch(() => {});
  }
  say(
    `colony: warning: could not switch to role ${APP_ROLE} on COLONY_DATABASE_URL; using the URL's role (the events guard trigger still refuses UPDATE/DELETE)`,
  );
  return { connectionString: url };
}
