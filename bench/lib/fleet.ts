/**
 * Fleet workers for the benchmarks: K `colony worker` processes (bin/colony.js, the built CLI) on
 * this machine, each with its own Colony home, joined to the benchmark's Postgres. They are Colony's
 * processes, so their CPU and memory count in the figures: `procs()` gives each worker and its
 * launchers (core/launcher.ts, Node children that start its git) for the RSS sampler, `cpuMs()` their
 * CPU so far. Each worker is its own process group (a Ctrl-C reaches the benchmark, which stops them:
 * SIGTERM, the worker hands its sessions back and leaves; SIGKILL to the group after 20 s).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchCleanup } from './cleanup.js';
import { allProcStats, type ProcStat } from './proc.js';

const COLONY_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'colony.js');

export interface BenchWorker {
  name: string;
  pid: number;
  child: ChildProcess;
  stderr(): string;
}

export interface BenchFleet {
  workers: BenchWorker[];
  slots: number;
  /** Each worker and its Node children (launchers), from one /proc scan (or the one given). */
  procs(stats?: readonly ProcStat[]): ProcStat[];
  /** CPU (user + system) of the workers and their launchers so far, in ms. */
  cpuMs(stats?: readonly ProcStat[]): number;
  /** The last lines each worker wrote on stderr (for error messages). */
  tails(): string;
  stop(): Promise<void>;
}

/** Starts `count` workers of `slots` sessions each and resolves once every one has joined the fleet. */
export async function startFleet(options: {
  count: number;
  slots: number;
  databaseUrl: string;
  /** Each worker's COLONY_HOME is a folder of this one. */
  dir: string;
  env?: NodeJS.ProcessEnv;
  cleanup: BenchCleanup;
}): Promise<BenchFleet> {
  const workers: BenchWorker[] = [];
  const stops: (() => Promise<void>)[] = [];
  for (let i = 1; i <= options.count; i++) {
    const name = `w${i}`;
    const home = join(options.dir, name);
    mkdirSync(home, { recursive: true });
    const child = spawn(
      process.execPath,
      [
        // BENCH_WORKER_CPU_PROF=DIR: each worker writes a CPU profile there when it stops.
        ...(process.env.BENCH_WORKER_CPU_PROF
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_CPU_PROF}`]
          : []),
        COLONY_BIN,
        'worker',
        '--name',
        name,
        '--slots',
        String(options.slots),
      ],
      {
        env: {
          ...process.env,
          ...options.env,
          COLONY_HOME: home,
          COLONY_DATABASE_URL: options.databaseUrl,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-20_000);
    });
    const pid = child.pid ?? -1;
    const forget = pid > 0 ? options.cleanup.guardProcess(pid, { group: true }) : () => {};
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {
            child.kill('SIGKILL');
          }
        }, 20_000);
        await exited;
        clearTimeout(timer);
      }
      // Whatever the worker left in its group (a launcher, a git) goes with it.
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // the group is empty
      }
      forget();
    };
    stops.push(stop);
    workers.push({ name, pid, child, stderr: () => stderr });
  }
  const stopAll = async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
  const undo = options.cleanup.defer('fleet workers', stopAll);
  const tails = () =>
    workers.map((w) => `${w.name}: ${w.stderr().trim().split('\n').slice(-8).join('\n    ')}`).join('\n');

  // Joined: the worker says "worker NAME: N slot(s), …" once DBOS runs and the queue is registered.
  const started = Date.now();
  for (const w of workers) {
    while (!w.stderr().includes(`worker ${w.name}:`)) {
      if (w.child.exitCode !== null || w.child.signalCode !== null)
        throw new Error(`worker ${w.name} exited (${w.child.exitCode ?? w.child.signalCode}):\n${tails()}`);
      if (Date.now() - started > 120_000)
        throw new Error(`worker ${w.name} did not join in 120 s:\n${tails()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const procs = (stats: readonly ProcStat[] = allProcStats()) => {
    const pids = new Set(workers.map((w) => w.pid));
    return stats.filter((s) => pids.has(s.pid) || (pids.has(s.ppid) && s.comm === 'node'));
  };
  return {
    workers,
    slots: options.slots,
    procs,
    cpuMs: (stats) => procs(stats).reduce((sum, s) => sum + s.cpuMs, 0),
    tails,
    async stop() {
      undo();
      await stopAll();
    },
  };
}
