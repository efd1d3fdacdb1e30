/**
 * Event log benchmark: N agents append concurrently (each awaiting its own appends in order) into one
 * run on a fresh embedded Postgres. Prints one JSON line:
 *   coldStartMs / warmStartMs / connectMs  open() with initdb, with a stopped cluster, with a running server
 *   events, agents, wallMs, eventsPerSec, flushes (INSERT statements)
 *   nodeCpuMs, nodeCpuMsPerEvent          this process's user+system CPU during the appends
 *   pgCpuMs, pgCpuMsPerEvent              all Postgres processes' CPU during the appends (Linux /proc)
 *   verifyMs, verified                     time and result of verify() over the run
 * Usage: node dist/bench/event-log.js [--agents 1000] [--events 25000] [--keep]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/index.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : Number.NaN;
  return Number.isFinite(value) ? value : fallback;
}

/** CPU ticks (user+system) of every process named postgres, in ms; null without /proc. */
function postgresCpuMs(): number | null {
  let ticks = 0;
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        if (!comm.startsWith('postgres')) continue;
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // Process ended while scanning.
      }
    }
  } catch {
    return null;
  }
  return ticks * 10; // USER_HZ is 100 on Linux.
}

async function main(): Promise<void> {
  const agents = arg('agents', 1000);
  const total = arg('events', 25_000);
  const home = mkdtempSync(join(tmpdir(), 'colony-bench-'));
  const quiet = { home, quiet: true, databaseUrl: '' };
  try {
    let t = performance.now();
    const first = await openStore(quiet);
    const coldStartMs = performance.now() - t;
    await first.close();
    t = performance.now();
    const store = await openStore(quiet);
    const warmStartMs = performance.now() - t;
    t = performance.now();
    const second = await openStore(quiet);
    const connectMs = performance.now() - t;
    await second.close();

    const runId = `bench-${Date.now().toString(36)}`;
    const perAgent = Math.ceil(total / agents);
    // Warm the pool and plans so the figures describe the steady state.
    await Promise.all(
      Array.from({ length: 200 }, () =>
        store.log.append({ runId: `${runId}-warm`, agent: 'w', kind: 'warning', data: { message: 'warm' } }),
      ),
    );
    const flushesBefore = store.log.stats.flushes;
    const pgBefore = postgresCpuMs();
    const cpuBefore = process.cpuUsage();
    t = performance.now();
    let appended = 0;
    await Promise.all(
      Array.from({ length: agents }, async (_, a) => {
        for (let i = 0; i < perAgent && appended < total; i++) {
          appended++;
          await store.log.append({
            runId,
            agent: `agent-${a}`,
            kind: 'tool.finished',
            data: {
              step: i,
              callId: `call-${a}-${i}`,
              name: 'bash',
              isError: false,
              content: 'ok: 3 tests passed\n'.repeat(4),
              summary: 'ok',
              durationMs: 12,
            },
          });
        }
      }),
    );
    const wallMs = performance.now() - t;
    const cpu = process.cpuUsage(cpuBefore);
    const pgAfter = postgresCpuMs();
    const flushes = store.log.stats.flushes - flushesBefore;
    t = performance.now();
    const verified = await store.log.verify(runId);
    const verifyMs = performance.now() - t;
    await store.close();
    const nodeCpuMs = (cpu.user + cpu.system) / 1000;
    const pgCpuMs = pgBefore !== null && pgAfter !== null ? pgAfter - pgBefore : null;
    const r = (x: number) => Math.round(x * 1000) / 1000;
    console.log(
      JSON.stringify({
        coldStartMs: Math.round(coldStartMs),
        warmStartMs: Math.round(warmStartMs),
        connectMs: Math.round(connectMs),
        agents,
        events: appended,
        wallMs: Math.round(wallMs),
        eventsPerSec: Math.round(appended / (wallMs / 1000)),
        flushes,
        nodeCpuMs: Math.round(nodeCpuMs),
        nodeCpuMsPerEvent: r(nodeCpuMs / appended),
        pgCpuMs,
        pgCpuMsPerEvent: pgCpuMs === null ? null : r(pgCpuMs / appended),
        verifyMs: Math.round(verifyMs),
        verified: verified.ok && verified.events === appended,
      }),
    );
  } finally {
    if (!process.argv.includes('--keep')) rmSync(home, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`bench event-log: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
