/**
 * The database of a benchmark run: Colony's embedded Postgres in a throwaway home (the default of the
 * in-process benchmarks), or a throwaway Debian Postgres (debian-postgres.ts), which a fleet needs —
 * workers are other processes with homes of their own, and the embedded server is per home. The
 * store is opened on it, and everything is handed to the clean-up (store closed, server stopped).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedPaths, openStore, type Store } from '../../src/store/index.js';
import type { BenchCleanup } from './cleanup.js';
import { benchPostmasterPid, startBenchPostgres, topStatements } from './debian-postgres.js';

export type BenchDatabaseKind = 'embedded' | 'debian';

export interface BenchDatabase {
  kind: BenchDatabaseKind;
  store: Store;
  /** The postmaster's pid (its backends are its children). */
  postmaster: number;
  /** Debian: the superuser's URL (COLONY_DATABASE_URL for workers; DBOS's tables are read with it). */
  url: string | null;
  /** `--pg-stats` (Debian only): the costliest statements so far, as text; null without it. */
  topStatements: (() => Promise<string>) | null;
}

export function parseDatabaseKind(value: string | undefined, fallback: BenchDatabaseKind): BenchDatabaseKind {
  const kind = value ?? fallback;
  if (kind !== 'embedded' && kind !== 'debian')
    throw new Error(`--postgres must be embedded or debian, not ${kind}`);
  return kind;
}

export async function openBenchDatabase(options: {
  kind: BenchDatabaseKind;
  home: string;
  poolSize: number;
  cleanup: BenchCleanup;
  maxConnections?: number;
  /** Load pg_stat_statements (Debian only; `--pg-stats`). */
  statements?: boolean;
}): Promise<BenchDatabase> {
  const { cleanup } = options;
  if (options.kind === 'embedded') {
    const store = await openStore({
      home: options.home,
      quiet: true,
      databaseUrl: '',
      poolSize: options.poolSize,
    });
    cleanup.defer('store', () => store.close());
    const pid = Number(
      readFileSync(join(embeddedPaths(options.home).data, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    if (!Number.isInteger(pid) || pid <= 0)
      throw new Error('cannot find the embedded Postgres postmaster pid');
    // Should this process die before the store closes, the embedded server goes too (SIGQUIT:
    // immediate shutdown, backends included).
    cleanup.guardProcess(pid, { signal: 'SIGQUIT' });
    return { kind: 'embedded', store, postmaster: pid, url: null, topStatements: null };
  }
  const db = await startBenchPostgres({
    maxConnections: options.maxConnections,
    statements: options.statements ?? false,
  });
  const forgetFolder = cleanup.guardFolder(db.dir);
  const pid = benchPostmasterPid(db);
  const forgetServer = pid ? cleanup.guardProcess(pid, { signal: 'SIGQUIT' }) : () => {};
  cleanup.defer('Postgres', async () => {
    await db.stop();
    forgetServer();
    forgetFolder();
  });
  if (pid === null) throw new Error(`cannot find the Debian Postgres postmaster pid in ${db.dir}`);
  const store = await openStore({
    home: options.home,
    quiet: true,
    databaseUrl: db.url,
    poolSize: options.poolSize,
  });
  cleanup.defer('store', () => store.close());
  return {
    kind: 'debian',
    store,
    postmaster: pid,
    url: db.url,
    topStatements: options.statements ? () => topStatements(db) : null,
  };
}
