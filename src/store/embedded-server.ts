import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { registerClient, scanClients, unregisterClient } from './client-registry.js';
import {
  APP_ROLE,
  EMBEDDED_DATABASE,
  EMBEDDED_SUPERUSER,
  type EmbeddedPaths,
  embeddedPaths,
} from './embedded-paths.js';
import { acquireFileLock, acquireFileLockSync } from './file-lock.js';
import { chownToPg, ensureTraversable, type PgOsUser, pgBinaries, pgOsUser } from './pg-binaries.js';
import {
  formatIdentity,
  isProcessAlive,
  parseIdentity,
  processIdentity,
  processName,
  sleep,
  sleepSync,
} from './process-liveness.js';

/**
 * One embedded Postgres per Colony home, shared by every `colony` process on the machine. The first
 * process starts it (detached, so it outlives that process), others connect; each registers in
 * `<home>/pg/clients/<pid>` and the last live one to leave stops it. Start/stop decisions happen
 * under an O_EXCL lock file. See docs/storage.md for the rules.
 */
export interface EmbeddedServer {
  port: number;
  superuserUrl: (database?: string) => string;
  appUrl: string;
  /** How this process got the server: initdb + start, start of an existing cluster, or connect. */
  mode: 'cold-start' | 'warm-start' | 'connected' | 'adopted';
  startMs: number;
}

export type Say = (line: string) => void;

const LOCK_TIMEOUT_MS = 60_000;
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const SILENT_GRACE_MS = 5_000;

/** In this process: how many open stores use each home's server (one registration per process). */
const users = new Map<string, { count: number; server: EmbeddedServer }>();
let exitHookInstalled = false;

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

function secretFile(path: string): string {
  const existing = readText(path);
  if (existing) return existing;
  const value = randomBytes(24).toString('hex');
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return value;
}

async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free port below the Linux ephemeral range, so client sockets will not take it later. */
async function pickPort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (await isPortFree(port)) return port;
  }
  throw new Error('could not find a free TCP port for the embedded Postgres');
}

async function choosePort(paths: EmbeddedPaths, say: Say): Promise<number> {
  const stored = Number(readText(paths.port));
  if (Number.isInteger(stored) && stored > 0) {
    if (await isPortFree(stored)) return stored;
    const port = await pickPort();
    say(`colony: port ${stored} of the embedded Postgres is taken by another program; using ${port}`);
    writeFileSync(paths.port, `${port}\n`);
    return port;
  }
  const port = await pickPort();
  writeFileSync(paths.port, `${port}\n`);
  return port;
}

interface PostmasterPid {
  pid: number;
  port: number;
  status: string;
}

function readPostmasterPid(dataDir: string): PostmasterPid | null {
  const text = readText(join(dataDir, 'postmaster.pid'));
  if (!text) return null;
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { pid, port: Number(lines[3]), status: (lines[7] ?? '').trim() };
}

function isPostgresAlive(pid: number): boolean {
  if (!isProcessAlive(pid)) return false;
  const name = processName(pid);
  return name === null || name.startsWith('postgres');
}

function superuserUrlFor(port: number, password: string, database: string): string {
  return `postgres://${EMBEDDED_SUPERUSER}:${password}@127.0.0.1:${port}/${database}`;
}

/** A socket path is at most 107 bytes: `<folder>/.s.PGSQL.<port>` must fit (else TCP only). */
function socketUsable(paths: EmbeddedPaths): boolean {
  return Buffer.byteLength(join(paths.socket, '.s.PGSQL.65535')) <= 107;
}

/**
 * The URL over the server's unix-domain socket when it has one (a server started by an older Colony
 * listens on TCP only): a query and its answer cost the kernel less than over loopback TCP, where a
 * 1,000-peer run spent ~20 s of its event loop in socket writes. Authentication is the same
 * (scram-sha-256 for local connections too); the socket's folder is the server user's alone.
 */
function viaSocket(url: string, paths: EmbeddedPaths, port: number): string {
  if (!existsSync(join(paths.socket, `.s.PGSQL.${port}`))) return url;
  return `${url}?host=${encodeURIComponent(paths.socket)}`;
}

/** One round trip as superuser: ok, busy (starting up / recovering: alive, keep waiting) or no answer. */
async function probe(url: string): Promise<{ state: 'ok' | 'busy' | 'silent'; error: string }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { state: 'ok', error: '' };
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return { state: e.code === '57P03' ? 'busy' : 'silent', error: e.message ?? String(err) };
  } finally {
    await client.end().catch(() => {});
  }
}

async function initCluster(paths: EmbeddedPaths, user: PgOsUser | null, password: string, say: Say) {
  const { initdb } = await pgBinaries();
  if (existsSync(paths.data) && readdirSync(paths.data).length > 0) {
    say(`colony: removing incomplete Postgres data folder ${paths.data} (initdb did not finish earlier)`);
    rmSync(paths.data, { recursive: true, force: true });
  }
  mkdirSync(paths.data, { recursive: true, mode: 0o700 });
  chownToPg(paths.data, user);
  const pwfile = join(paths.root, `.initdb-pw-${process.pid}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  chownToPg(pwfile, user);
  try {
    const args = [
      `--pgdata=${paths.data}`,
      '--auth=scram-sha-256',
      `--username=${EMBEDDED_SUPERUSER}`,
      `--pwfile=${pwfile}`,
      '--encoding=UTF8',
      '--locale=C',
    ];
    const out = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(initdb, args, {
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
        cwd: paths.data,
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => {
        output += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        output += c.toString();
      });
      child.on('error', (err) => resolve({ code: -1, output: err.message }));
      child.on('close', (code) => resolve({ code, output }));
    });
    if (out.code !== 0)
      throw new Error(`initdb failed (exit ${out.code}): ${out.output.trim().slice(-2000)}`);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

async function startServer(paths: EmbeddedPaths, user: PgOsUser | null, port: number): Promise<void> {
  const { postgres } = await pgBinaries();
  if (!existsSync(paths.log)) writeFileSync(paths.log, '');
  chownToPg(paths.log, user);
  const logFd = openSync(paths.log, 'a');
  if (socketUsable(paths)) {
    mkdirSync(paths.socket, { recursive: true, mode: 0o700 });
    chownToPg(paths.socket, user);
  }
  const args = [
    '-D',
    paths.data,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${socketUsable(paths) ? paths.socket : ''}`,
    '-c',
    'unix_socket_permissions=0700',
    '-c',
    'max_connections=300',
  ];
  const child = spawn(postgres, args, {
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
    cwd: paths.data,
    detached: true, // Own session: the server outlives this process and is not hit by its Ctrl-C.
    stdio: ['ignore', logFd, logFd],
    env: { ...process.env, LC_ALL: 'C' },
  });
  closeSync(logFd);
  let exited: string | null = null;
  child.on('exit', (code, signal) => {
    exited = `exit ${code ?? signal}`;
  });
  child.on('error', (err) => {
    exited = err.message;
  });
  child.unref();
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited) {
      const tail = (readText(paths.log) ?? '').split('\n').slice(-8).join('\n');
      throw new Error(`embedded Postgres failed to start (${exited}); log ${paths.log}:\n${tail}`);
    }
    const pm = readPostmasterPid(paths.data);
    if (pm && pm.pid === child.pid && pm.status === 'ready') return;
    await sleep(15);
  }
  throw new Error(
    `embedded Postgres did not become ready within ${READY_TIMEOUT_MS / 1000}s; see ${paths.log}`,
  );
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid)) return true;
    await sleep(20);
  }
  return !isProcessAlive(pid);
}

async function killOrphan(pid: number, say: Say): Promise<void> {
  say(
    `colony: killing unresponsive orphaned Postgres (pid ${pid} from postmaster.pid; no live Colony process uses it)`,
  );
  try {
    process.kill(pid, 'SIGQUIT'); // Immediate shutdown: the postmaster takes its backends down too.
    process.kill(pid, 'SIGCONT'); // A stopped process only acts on SIGQUIT once continued.
  } catch {
    // Already gone.
  }
  if (await waitForExit(pid, 5000)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
  if (!(await waitForExit(pid, 5000))) throw new Error(`could not kill orphaned Postgres pid ${pid}`);
}

function describeStarter(paths: EmbeddedPaths): number | null {
  try {
    const info = JSON.parse(readFileSync(paths.server, 'utf8')) as { startedBy?: string };
    return parseIdentity(info.startedBy ?? '')?.pid ?? null;
  } catch {
    return null;
  }
}

/** Under the lock: make sure a server answers for this home; returns how. */
async function ensureRunning(
  paths: EmbeddedPaths,
  user: PgOsUser | null,
  superPassword: string,
  othersLive: number,
  crashedClients: number[],
  say: Say,
): Promise<{ port: number; mode: EmbeddedServer['mode'] }> {
  let cold = false;
  if (!existsSync(join(paths.data, 'PG_VERSION'))) {
    await initCluster(paths, user, superPassword, say);
    cold = true;
  }
  let pm = readPostmasterPid(paths.data);
  if (pm && isPostgresAlive(pm.pid)) {
    const url = superuserUrlFor(pm.port, superPassword, 'postgres');
    // A live postmaster may be starting or recovering (it says so: wait for it); one that does not
    // answer at all gets a short grace period unless live clients use it.
    const started = Date.now();
    let answer = await probe(url);
    while (answer.state !== 'ok' && isPostgresAlive(pm.pid)) {
      const waited = Date.now() - started;
      const limit = answer.state === 'busy' || othersLive > 0 ? LOCK_TIMEOUT_MS : SILENT_GRACE_MS;
      if (waited >= limit) break;
      await sleep(200);
      answer = await probe(url);
    }
    const error = answer.state === 'ok' ? null : answer.error;
    if (!error) {
      if (othersLive === 0) {
        // Name the registered clients that died without unregistering; else whoever started it.
        const starter = describeStarter(paths);
        const crashed = crashedClients.length > 0 ? crashedClients.join(', ') : String(starter ?? 'unknown');
        const plural = crashedClients.length > 1 ? 'processes' : 'process';
        say(
          `colony: adopted the embedded Postgres (pid ${pm.pid}) left running by crashed ${plural} ${crashed}`,
        );
        writeFileSync(
          paths.server,
          JSON.stringify({ startedBy: formatIdentity(processIdentity()), port: pm.port }),
        );
        return { port: pm.port, mode: 'adopted' };
      }
      return { port: pm.port, mode: 'connected' };
    }
    if (othersLive > 0) {
      throw new Error(
        `embedded Postgres (pid ${pm.pid}) does not respond (${error}) but live Colony processes use it; not killing it. See ${paths.log}`,
      );
    }
    if (isPostgresAlive(pm.pid)) await killOrphan(pm.pid, say);
    pm = readPostmasterPid(paths.data);
  }
  if (pm) {
    say(
      `colony: removing stale ${join(paths.data, 'postmaster.pid')} (Postgres pid ${pm.pid} is not running)`,
    );
    rmSync(join(paths.data, 'postmaster.pid'), { force: true });
  }
  const port = await choosePort(paths, say);
  // Right after killing an orphan its backends may still hold shared memory: retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await startServer(paths, user, port);
      break;
    } catch (err) {
      if (attempt >= 3) throw err;
      await sleep(500);
    }
  }
  writeFileSync(paths.server, JSON.stringify({ startedBy: formatIdentity(processIdentity()), port }));
  return { port, mode: cold ? 'cold-start' : 'warm-start' };
}

async function ensureDatabaseAndRole(
  port: number,
  superPassword: string,
  appPassword: string,
): Promise<void> {
  const client = new pg.Client({ connectionString: superuserUrlFor(port, superPassword, 'postgres') });
  client.on('error', () => {});
  await client.connect();
  try {
    const db = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (db.rowCount === 0) await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
    const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APP_ROLE]);
    // The password is hex from randomBytes, safe to inline (utility statements take no parameters).
    const verb = role.rowCount === 0 ? 'CREATE' : 'ALTER';
    await client.query(`${verb} ROLE ${APP_ROLE} LOGIN PASSWORD '${appPassword}'`);
  } finally {
    await client.end().catch(() => {});
  }
}

export type AcquireResult = { ok: true; server: EmbeddedServer } | { ok: false; error: string };

/** Registers this process as a user of `home`'s embedded server, starting or adopting it if needed. */
export async function acquireEmbeddedServer(home: string, say: Say): Promise<AcquireResult> {
  const existing = users.get(home);
  if (existing) {
    existing.count++;
    return { ok: true, server: { ...existing.server, mode: 'connected', startMs: 0 } };
  }
  const t0 = performance.now();
  const paths = embeddedPaths(home);
  try {
    mkdirSync(paths.root, { recursive: true, mode: 0o711 });
    const user = pgOsUser();
    ensureTraversable(paths.data, home, user, say);
    const locked = await acquireFileLock(paths.lock, LOCK_TIMEOUT_MS);
    if (!locked.ok) return { ok: false, error: `embedded Postgres: ${locked.error}` };
    try {
      const superPassword = secretFile(paths.superuserPassword);
      const appPassword = secretFile(paths.appPassword);
      const scan = scanClients(paths.clients);
      registerClient(paths.clients);
      installExitHook();
      let result: { port: number; mode: EmbeddedServer['mode'] };
      try {
        result = await ensureRunning(
          paths,
          user,
          superPassword,
          scan.live.length,
          scan.dead.map((d) => d.pid),
          say,
        );
        // Whoever started or adopted the server has set up the database and role already.
        if (result.mode !== 'connected') await ensureDatabaseAndRole(result.port, superPassword, appPassword);
      } catch (err) {
        unregisterClient(paths.clients);
        throw err;
      }
      const server: EmbeddedServer = {
        port: result.port,
        superuserUrl: (database = EMBEDDED_DATABASE) =>
          viaSocket(superuserUrlFor(result.port, superPassword, database), paths, result.port),
        appUrl: viaSocket(
          `postgres://${APP_ROLE}:${appPassword}@127.0.0.1:${result.port}/${EMBEDDED_DATABASE}`,
          paths,
          result.port,
        ),
        mode: result.mode,
        startMs: Math.round(performance.now() - t0),
      };
      users.set(home, { count: 1, server });
      return { ok: true, server };
    } finally {
      locked.lock.release();
    }
  } catch (err) {
    return { ok: false, error: `embedded Postgres: ${(err as Error).message}` };
  }
}

async function stopServer(paths: EmbeddedPaths): Promise<void> {
  const pm = readPostmasterPid(paths.data);
  if (!pm || !isPostgresAlive(pm.pid)) return;
  try {
    process.kill(pm.pid, 'SIGINT'); // Fast shutdown: roll back open transactions, checkpoint, exit.
  } catch {
    return;
  }
  await waitForExit(pm.pid, STOP_TIMEOUT_MS);
}

/** Unregisters this process; the last live user stops the server. */
export async function releaseEmbeddedServer(home: string): Promise<void> {
  const entry = users.get(home);
  if (!entry) return;
  entry.count--;
  if (entry.count > 0) return;
  users.delete(home);
  const paths = embeddedPaths(home);
  const locked = await acquireFileLock(paths.lock, LOCK_TIMEOUT_MS);
  if (!locked.ok) {
    // Leave the server running; the next process adopts it.
    unregisterClient(paths.clients);
    return;
  }
  try {
    unregisterClient(paths.clients);
    if (scanClients(paths.clients).live.length === 0) await stopServer(paths);
  } finally {
    locked.lock.release();
  }
}

/** Stores not closed before exit: unregister synchronously and stop the server if we were last. */
function releaseAllSync(): void {
  for (const home of users.keys()) {
    const paths = embeddedPaths(home);
    const locked = acquireFileLockSync(paths.lock, 2000);
    unregisterClient(paths.clients);
    if (!locked.ok) continue;
    try {
      if (scanClients(paths.clients).live.length > 0) continue;
      const pm = readPostmasterPid(paths.data);
      if (!pm || !isPostgresAlive(pm.pid)) continue;
      try {
        process.kill(pm.pid, 'SIGINT');
      } catch {
        continue;
      }
      const deadline = Date.now() + 10_000;
      while (isProcessAlive(pm.pid) && Date.now() < deadline) sleepSync(20);
    } finally {
      locked.lock.release();
    }
  }
  users.clear();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', releaseAllSync);
}
