import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * A throwaway Postgres server started from Debian's `postgresql` package binaries
 * (/usr/lib/postgresql/<version>/bin; scripts/ensure-postgresql.sh installs them): the "external"
 * database of a fleet, separate from Colony's embedded server. TCP on 127.0.0.1 with SCRAM passwords
 * (or on another address, inside a network namespace: `netns`, `listen`, `allow`), its Unix socket in
 * its own folder. As root the server runs as the package's `postgres` OS user (initdb and postgres
 * refuse root).
 */
export interface DebianPostgres {
  /** postgres://user:password@HOST:port/database, the superuser on the default database (HOST: `listen`). */
  url: string;
  port: number;
  user: string;
  password: string;
  /** The same server and superuser, another database. */
  urlFor(database: string, credentials?: { user: string; password: string }): string;
  /**
   * The same over the server's Unix socket: reachable from this machine's processes in any network
   * namespace (a socket file is not bound to one), e.g. the test process outside the server's.
   */
  socketUrlFor(database: string): string;
  /** Runs SQL as the superuser on `database` (default: the default database); in `netns`, over the socket. */
  sql(text: string, database?: string): Promise<pg.QueryResult>;
  /** PEM of the server's self-signed certificate (only with `tls`). */
  certFile: string | null;
  /** The server's folder (data, socket, log). */
  dir: string;
  /**
   * A crash and a restart: an immediate shutdown (SIGQUIT: every backend dies at once, as at a
   * kill -9 of the server, and the next start runs crash recovery), `downMs` with no server, then the
   * same server on the same port again.
   */
  crashAndRestart(downMs: number): Promise<void>;
  /** Fast shutdown, then removes the folder. Idempotent. */
  stop(): Promise<void>;
}

export interface DebianPostgresOptions {
  /** Serve TLS with a self-signed certificate for 127.0.0.1, and refuse TCP clients without it. */
  tls?: boolean;
  /** Start the server inside this network namespace (`ip netns exec NS`; needs root). */
  netns?: string;
  /** The one TCP address to listen on (default 127.0.0.1); URLs name it. */
  listen?: string;
  /** The TCP port (default: a free one on 127.0.0.1; 5432 inside `netns`, where all are free). */
  port?: number;
  /** More TCP clients allowed in (CIDRs, e.g. 10.213.0.0/24), with the superuser's password. */
  allow?: string[];
}

const SUPERUSER = 'fleet_admin';
const DATABASE = 'fleet';
const ENSURE = "run scripts/ensure-postgresql.sh (as root, or install Debian's postgresql package)";

/** The newest /usr/lib/postgresql/<version>/bin that has initdb, or an actionable error. */
export function debianPgBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error(`Debian's Postgres binaries are missing (no ${root}/*/bin/initdb): ${ENSURE}`);
  return join(root, versions[0], 'bin');
}

function postgresUser(): { uid: number; gid: number } {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === 'postgres') return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error(`running as root, and there is no 'postgres' OS user to run Postgres as: ${ENSURE}`);
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a Postgres binary, as the `postgres` OS user when we are root (inside `netns` when given). */
function runPg(
  bin: string,
  args: string[],
  timeoutMs = 60_000,
  netns?: string,
): Promise<{ ok: boolean; output: string }> {
  const [user, userArgs] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const [cmd, argv] = netns ? ['ip', ['netns', 'exec', netns, user, ...userArgs]] : [user, userArgs];
  return new Promise((resolve) => {
    execFile(cmd, argv, { timeout: timeoutMs, env: { ...process.env, LC_ALL: 'C' } }, (err, stdout, stderr) =>
      resolve({ ok: !err, output: `${stdout}${stderr}`.trim() || String(err?.message ?? '') }),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-10).join('\n');
  } catch {
    return '(no log)';
  }
}

async function makeCert(dir: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, 'server.crt');
  const key = join(dir, 'server.key');
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1'];
  args.push('-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert);
  const failed = await new Promise<string | null>((resolve) =>
    execFile('openssl', args, (err, _out, stderr) => resolve(err ? `${err.message} ${stderr}` : null)),
  );
  if (failed) throw new Error(`could not make a test certificate with openssl: ${failed}`);
  chmodSync(key, 0o600); // postgres refuses a key others can read
  return { cert, key };
}

/** initdb + start; resolves once the server accepts the superuser's password (see `sql`). */
export async function startDebianPostgres(options: DebianPostgresOptions = {}): Promise<DebianPostgres> {
  const bin = debianPgBin();
  if (options.netns && !isRoot())
    throw new Error(`starting Postgres in the network namespace ${options.netns} needs root`);
  const host = options.listen ?? '127.0.0.1';
  if (options.tls && host !== '127.0.0.1')
    throw new Error('tls: the test certificate is for 127.0.0.1 only; do not combine it with listen');
  const owner = isRoot() ? postgresUser() : null;
  const dir = mkdtempSync(join(tmpdir(), 'colony-debian-pg-'));
  const give = (path: string) => owner && chownSync(path, owner.uid, owner.gid);
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const data = join(dir, 'data');
  const socket = join(dir, 'socket');
  const log = join(dir, 'server.log');
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  try {
    give(dir);
    mkdirSync(socket);
    give(socket);
    writeFileSync(log, '');
    give(log);
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    give(pwfile);
    const init = await runPg(join(bin, 'initdb'), [
      `--pgdata=${data}`,
      `--username=${SUPERUSER}`,
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ]);
    rmSync(pwfile, { force: true });
    if (!init.ok)
      throw new Error(
        `initdb failed in ${dir}${owner ? " (as the 'postgres' OS user: it must be able to enter every folder above it)" : ''}: ${init.output.slice(-1500)}`,
      );
    const serverOptions = ['-k', socket, '-c', `listen_addresses=${host}`];
    let certFile: string | null = null;
    if (options.tls) {
      const { cert, key } = await makeCert(dir);
      give(cert);
      give(key);
      certFile = cert;
      serverOptions.push('-c', 'ssl=on', '-c', `ssl_cert_file=${cert}`, '-c', `ssl_key_file=${key}`);
      // TCP clients must use TLS: only hostssl lines (the socket keeps its own line).
      writeFileSync(
        join(data, 'pg_hba.conf'),
        'local all all scram-sha-256\nhostssl all all 127.0.0.1/32 scram-sha-256\n',
      );
    }
    if (options.allow?.length) {
      const hba = join(data, 'pg_hba.conf');
      const lines = options.allow.map((cidr) => `host all all ${cidr} scram-sha-256`);
      writeFileSync(hba, `${readFileSync(hba, 'utf8').trimEnd()}\n${lines.join('\n')}\n`);
    }
    // A port picked free can be taken before postgres binds it: pick again.
    let port = 0;
    let started: { ok: boolean; output: string } = { ok: false, output: '' };
    const fixedPort = options.port ?? (options.netns ? 5432 : undefined);
    for (let attempt = 0; attempt < 3 && !started.ok; attempt++) {
      port = fixedPort ?? (await freePort());
      const opts = [...serverOptions, '-p', String(port)].join(' ');
      started = await runPg(
        join(bin, 'pg_ctl'),
        ['-D', data, '-l', log, '-w', '-t', '60', '-o', opts, 'start'],
        60_000,
        options.netns,
      );
      if (!started.ok && (fixedPort !== undefined || !/could not bind|already in use/i.test(tail(log))))
        break;
    }
    if (!started.ok) {
      const why = `postgres did not start (${started.output.slice(-500)}); log:\n${tail(log)}`;
      await runPg(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      throw new Error(why);
    }
    const sslQuery = certFile ? `?sslmode=verify-full&sslrootcert=${encodeURIComponent(certFile)}` : '';
    const urlFor: DebianPostgres['urlFor'] = (database, who = { user: SUPERUSER, password }) =>
      `postgres://${encodeURIComponent(who.user)}:${encodeURIComponent(who.password)}@${host}:${port}/${database}${sslQuery}`;
    const socketUrlFor = (database: string) =>
      `postgres://${encodeURIComponent(SUPERUSER)}:${encodeURIComponent(password)}@${encodeURIComponent(socket)}:${port}/${database}`;
    let stopped = false;
    const stopNow = async () => {
      if (stopped) return;
      stopped = true;
      process.off('exit', onExit);
      await runPg(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      cleanup();
    };
    // A test process that exits without stop() must not leave a server (or its folder) behind.
    const onExit = () => {
      try {
        const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        if (pid > 0) process.kill(pid, 'SIGQUIT'); // immediate shutdown, backends included
      } catch {
        // Not running.
      }
      cleanup();
    };
    process.on('exit', onExit);
    const sql = async (text: string, database = 'postgres') => {
      // Over TCP when the server is on this process's loopback (as before; with TLS when asked),
      // else over the Unix socket: a server in another network namespace is not on our loopback.
      const connectionString = options.netns ? socketUrlFor(database) : urlFor(database);
      const client = new pg.Client({ connectionString });
      client.on('error', () => {});
      await client.connect();
      try {
        return await client.query(text);
      } finally {
        await client.end().catch(() => {});
      }
    };
    try {
      await sql(`CREATE DATABASE ${DATABASE}`);
    } catch (err) {
      await stopNow();
      throw new Error(
        `the Debian Postgres started but does not accept its superuser: ${(err as Error).message}`,
      );
    }
    return {
      url: urlFor(DATABASE),
      port,
      user: SUPERUSER,
      password,
      urlFor,
      socketUrlFor,
      sql,
      certFile,
      dir,
      async crashAndRestart(downMs) {
        const down = await runPg(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
        if (!down.ok) throw new Error(`postgres did not stop: ${down.output.slice(-500)}`);
        await new Promise((resolve) => setTimeout(resolve, downMs));
        const opts = [...serverOptions, '-p', String(port)].join(' ');
        const up = await runPg(
          join(bin, 'pg_ctl'),
          ['-D', data, '-l', log, '-w', '-t', '60', '-o', opts, 'start'],
          60_000,
          options.netns,
        );
        if (!up.ok)
          throw new Error(`postgres did not start again (${up.output.slice(-500)}); log:\n${tail(log)}`);
      },
      stop: stopNow,
    };
  } catch (err) {
    cleanup();
    throw err;
  }
}
