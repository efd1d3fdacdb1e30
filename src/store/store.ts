import { homedir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { databaseAway } from './database-away.js';
import {
  acquireEmbeddedServer,
  type EmbeddedServer,
  releaseEmbeddedServer,
  type Say,
} from './embedded-server.js';
import { PgEventLog } from './event-log.js';
import { describeExternalError } from './external-error.js';
import { appConnection, ensureExternalAppRole } from './external-role.js';
import { runMigrations } from './migrations.js';
import { type RunLockResult, tryLockRun } from './run-lock.js';
import { createRunStore, type RunStore } from './runs.js';

export interface StoreOptions {
  /** Colony's state folder; default `COLONY_HOME` or `~/.colony`. */
  home?: string;
  /** External Postgres; default `COLONY_DATABASE_URL`. Unset: the shared embedded server. */
  databaseUrl?: string;
  /** No notices on stderr. */
  quiet?: boolean;
  /** Receives notices (adopted server, stale files…) instead of stderr. */
  onMessage?: (line: string) => void;
  /** App pool size (default 10). */
  poolSize?: number;
}

export interface Store {
  log: PgEventLog;
  runs: RunStore;
  /** The application's pool (role colony_app where possible). */
  pool: pg.Pool;
  /** Embedded only: the superuser URL of the colony database (tests, admin). */
  superuserUrl: string | null;
  /** The URL app connections use (with `connection.options` for the role switch, if any). */
  databaseUrl: string;
  /** Full connection config of app connections (URL plus role option). */
  connection: pg.ClientConfig;
  home: string;
  /** Embedded only: how the server was obtained and how long opening took. */
  embedded: Pick<EmbeddedServer, 'mode' | 'startMs' | 'port'> | null;
  /** Per-run ownership lock on a dedicated connection (released by close()). */
  tryLockRun(runId: string): Promise<RunLockResult>;
  close(): Promise<void>;
}

/**
 * `away`: the database did not answer (not up yet, restarting, unreachable) rather than refusing us;
 * a long-running service may wait for it (open-waiting.ts). Bad credentials or a bad URL are not away.
 */
export type OpenResult = { ok: true; store: Store } | { ok: false; error: string; away: boolean };

export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.COLONY_HOME && env.COLONY_HOME.length > 0 ? env.COLONY_HOME : join(homedir(), '.colony');
}

async function migrate(
  config: pg.ClientConfig,
  setup: (c: pg.Client) => Promise<{ appRole: boolean; regrant: boolean }>,
) {
  const client = new pg.Client(config);
  client.on('error', () => {});
  await client.connect();
  try {
    await runMigrations(client, await setup(client));
  } finally {
    await client.end().catch(() => {});
  }
}

/** Opens the store, returning a clear error instead of throwing. */
export async function tryOpenStore(options: StoreOptions = {}): Promise<OpenResult> {
  const home = options.home ?? resolveHome();
  const say: Say =
    options.onMessage ?? (options.quiet ? () => {} : (line) => process.stderr.write(`${line}\n`));
  const externalUrl = options.databaseUrl ?? process.env.COLONY_DATABASE_URL ?? '';
  let embedded: EmbeddedServer | null = null;
  let connection: pg.ClientConfig;
  try {
    if (externalUrl) {
      await migrate({ connectionString: externalUrl }, async (c) => {
        const role = await ensureExternalAppRole(c);
        return { appRole: role.exists, regrant: role.created };
      });
      connection = await appConnection(externalUrl, say);
    } else {
      const acquired = await acquireEmbeddedServer(home, say);
      if (!acquired.ok) return { ...acquired, away: false };
      embedded = acquired.server;
      await migrate({ connectionString: embedded.superuserUrl() }, async () => ({
        appRole: true,
        regrant: false,
      }));
      connection = { connectionString: embedded.appUrl };
    }
  } catch (err) {
    if (embedded) await releaseEmbeddedServer(home);
    if (externalUrl) {
      const source = options.databaseUrl ? 'databaseUrl' : 'COLONY_DATABASE_URL';
      return { ok: false, error: describeExternalError(externalUrl, source, err), away: databaseAway(err) };
    }
    return { ok: false, error: `store: ${(err as Error).message}`, away: false };
  }
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 10 });
  // Idle clients can error when the server goes away; without a listener that would crash the process.
  pool.on('error', () => {});
  const log = new PgEventLog(pool);
  const locks = new Set<() => Promise<void>>();
  let closed = false;
  const store: Store = {
    log,
    runs: createRunStore(pool),
    pool,
    superuserUrl: embedded ? embedded.superuserUrl() : null,
    databaseUrl: connection.connectionString ?? externalUrl,
    connection,
    home,
    embedded: embedded ? { mode: embedded.mode, startMs: embedded.startMs, port: embedded.port } : null,
    async tryLockRun(runId) {
      const result = await tryLockRun(connection, runId);
      if (!result.ok) return result;
      const release = async () => {
        locks.delete(release);
        await result.release();
      };
      locks.add(release);
      return { ok: true, release, lost: result.lost, check: result.check };
    },
    async close() {
      if (closed) return;
      closed = true;
      await log.flush();
      await Promise.all([...locks].map((release) => release()));
      await pool.end().catch(() => {});
      if (embedded) await releaseEmbeddedServer(home);
    },
  };
  return { ok: true, store };
}

/** Opens the store; throws an Error with a one-line reason when it cannot. */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const result = await tryOpenStore(options);
  if (!result.ok) throw new Error(result.error);
  return result.store;
}
