/**
 * The fleet benchmarks' Postgres: the same throwaway server from Debian's binaries as the fleet tests
 * (one implementation, test/helpers/debian-postgres.ts; the bench build compiles it in), with the
 * connection limit a benchmark fleet needs. Each worker holds an app pool of up to 40 connections and
 * a DBOS pool of up to 20, the owner ~40: more than Postgres's default of 100.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DebianPostgres, debianPgBin, startDebianPostgres } from '../../test/helpers/debian-postgres.js';

export type { DebianPostgres } from '../../test/helpers/debian-postgres.js';

/** The data folder startDebianPostgres makes inside its folder. */
const dataOf = (db: DebianPostgres) => join(db.dir, 'data');

function pgCtl(args: string[]): Promise<string | null> {
  const bin = join(debianPgBin(), 'pg_ctl');
  // As root the server runs as the package's postgres OS user (initdb and postgres refuse root).
  const [cmd, argv] =
    process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return new Promise((resolve) =>
    execFile(cmd, argv, { timeout: 120_000, env: { ...process.env, LC_ALL: 'C' } }, (err, out, errOut) =>
      resolve(err ? `${err.message} ${out}${errOut}`.trim() : null),
    ),
  );
}

/**
 * A Debian Postgres with `max_connections` raised (ALTER SYSTEM, then a restart with the options it
 * was started with: pg_ctl restart reads them back from postmaster.opts).
 */
export async function startBenchPostgres(
  options: { maxConnections?: number; statements?: boolean } = {},
): Promise<DebianPostgres> {
  const db = await startDebianPostgres();
  const maxConnections = options.maxConnections ?? 400;
  try {
    await db.sql(`ALTER SYSTEM SET max_connections = ${Math.floor(maxConnections)}`);
    if (options.statements) {
      await db.sql(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    }
    // `-l`: the server's output goes to its log, as at the start (without it, it would keep pg_ctl's
    // stdout open, and execFile would wait for that pipe until its time-out).
    const log = join(db.dir, 'server.log');
    const failed = await pgCtl(['-D', dataOf(db), '-l', log, '-m', 'fast', '-w', '-t', '60', 'restart']);
    if (failed) throw new Error(`could not restart the benchmark's Postgres: ${failed}`);
    const shown = await db.sql('SHOW max_connections');
    const now = Number(shown.rows[0]?.max_connections);
    if (now !== Math.floor(maxConnections))
      throw new Error(`max_connections is ${now} after the restart, not ${maxConnections}`);
    if (options.statements) {
      await db.sql('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      // Known only once the library is loaded (after the restart); a reload applies it.
      await db.sql('ALTER SYSTEM SET pg_stat_statements.track_planning = on');
      await db.sql('SELECT pg_reload_conf()');
    }
    return db;
  } catch (err) {
    await db.stop();
    throw err;
  }
}

/** The running server's postmaster pid (its backends are its children), or null. */
export function benchPostmasterPid(db: DebianPostgres): number | null {
  try {
    const pid = Number(readFileSync(join(dataOf(db), 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * `--pg-stats`: the statements that cost Postgres the most time over the run (pg_stat_statements),
 * one line each: total ms, calls, mean ms, rows, the query's first 140 characters.
 */
export async function topStatements(db: DebianPostgres, limit = 30): Promise<string> {
  const result = await db.sql(
    `SELECT round(total_exec_time) AS ms, round(total_plan_time) AS plan, calls,
            round(((total_exec_time + total_plan_time) / nullif(calls, 0))::numeric, 3) AS mean,
            rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS query
       FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT ${Math.floor(limit)}`,
  );
  const lines = result.rows.map(
    (r) =>
      `${r.ms} ms (+${r.plan} planning)  ${r.calls} calls  ${r.mean} ms/call  ${r.rows} rows  ${r.query}`,
  );
  const sums = await db.sql(
    `SELECT round(sum(total_exec_time)) AS exec, round(sum(total_plan_time)) AS plan, sum(calls) AS calls
       FROM pg_stat_statements`,
  );
  const sum = sums.rows[0];
  return [
    `pg_stat_statements, by total time (all: ${sum?.exec} ms executing, ${sum?.plan} ms planning, ${sum?.calls} calls):`,
    ...lines,
  ].join('\n');
}
