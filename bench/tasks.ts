/**
 * Task-board benchmark (keys: bench/README.md § tasks). On a throwaway embedded Postgres, in one
 * process:
 *  1. tasks_add of `--tasks` tasks in calls of 1,000;
 *  2. `--callers` concurrent claim_next calls at once on that board (each task granted once);
 *  3. a work loop: the callers take tasks with claim_next and release them "done" until a board of
 *     `--work-tasks` tasks (a third with a predecessor) is empty: claim_next + release throughput.
 * Double grants come from checkGrantHistory over the run's events.
 * Usage: npm run bench -- tasks [--tasks 1000] [--callers 1000] [--work-tasks 3000] [--home DIR] [--keep]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Coordination,
  checkGrantHistory,
  createCoordination,
  type TaskInput,
} from '../src/coord/index.js';
import { seededRandom } from '../src/core/random.js';
import { openStore, type Store } from '../src/store/index.js';
import { parseBenchArgs } from './lib/args.js';

const args = parseBenchArgs(process.argv.slice(2));
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const file = (i: number) => `files/f${String(i).padStart(5, '0')}.txt`;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function addAll(coord: Coordination, runId: string, tasks: TaskInput[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < tasks.length; i += 1000) {
    const r = await coord.tasks.add(runId, 'planner', tasks.slice(i, i + 1000));
    if (!r.ok) throw new Error(r.error);
  }
  return performance.now() - started;
}

async function doubleGrants(store: Store, runId: string) {
  const history = checkGrantHistory(await store.log.read(runId));
  return { doubleGrants: history.violations.length, ok: history.ok, grants: history.grants };
}

async function grab(coord: Coordination, store: Store, tasks: number, callers: number) {
  const runId = `bench-grab-${Date.now().toString(36)}`;
  const addMs = await addAll(
    coord,
    runId,
    Array.from({ length: tasks }, (_, i) => ({ title: `task ${i}`, scope: file(i) })),
  );
  const latencies: number[] = [];
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: callers }, async (_, i) => {
      const t0 = performance.now();
      const r = await coord.tasks.claimNext(runId, `agent${i}`);
      latencies.push(performance.now() - t0);
      if (!r.ok) throw new Error(r.error);
      return r.value;
    }),
  );
  const wallMs = performance.now() - started;
  const granted = outcomes.flatMap((o) => (o.status === 'granted' ? [o.task.id] : []));
  const audit = await doubleGrants(store, runId);
  return {
    tasks,
    callers,
    addMs: Math.round(addMs),
    addPerSec: Math.round(tasks / (addMs / 1000)),
    claimNextWallMs: Math.round(wallMs),
    claimNextPerSec: Math.round(callers / (wallMs / 1000)),
    claimNextP50Ms: round(percentile(latencies, 50)),
    claimNextP99Ms: round(percentile(latencies, 99)),
    claimNextGranted: granted.length,
    claimNextDistinct: new Set(granted).size,
    claimNextNone: outcomes.length - granted.length,
    claimNextDoubleGrants: audit.doubleGrants,
  };
}

async function work(coord: Coordination, store: Store, tasks: number, callers: number) {
  const runId = `bench-work-${Date.now().toString(36)}`;
  const random = seededRandom(42);
  await addAll(
    coord,
    runId,
    Array.from({ length: tasks }, (_, i) => ({
      title: `step ${i}`,
      scope: file(i),
      after: i > 0 && random() < 0.33 ? [1 + Math.floor(random() * i)] : [],
    })),
  );
  let calls = 0;
  let waits = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async (_, i) => {
      const agent = `agent${i}`;
      for (;;) {
        const r = await coord.tasks.claimNext(runId, agent);
        calls++;
        if (!r.ok) throw new Error(r.error);
        if (r.value.status === 'none') {
          if (r.value.counts.open === 0) return;
          waits++;
          await new Promise((res) => setTimeout(res, 20));
          continue;
        }
        const released = await coord.claims.release({
          runId,
          agent,
          scope: r.value.task.scope,
          outcome: 'done',
        });
        calls++;
        if (!released.ok) throw new Error(released.error);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const audit = await doubleGrants(store, runId);
  return {
    workTasks: tasks,
    workWallMs: Math.round(wallMs),
    workTasksPerSec: Math.round(tasks / (wallMs / 1000)),
    workCallsPerSec: Math.round(calls / (wallMs / 1000)),
    workWaits: waits,
    workDoubleGrants: audit.doubleGrants,
    grantHistoryOk: audit.ok,
  };
}

async function main(): Promise<void> {
  const tasks = args.number('tasks', 1000);
  const callers = args.number('callers', 1000);
  const workTasks = args.number('work-tasks', 3000);
  const given = args.string('home');
  const home = given ?? mkdtempSync(join(tmpdir(), 'colony-bench-tasks-'));
  const store = await openStore({ home, quiet: true, databaseUrl: '', poolSize: 20 });
  const coord = await createCoordination(store);
  try {
    const result = {
      ...(await grab(coord, store, tasks, callers)),
      ...(await work(coord, store, workTasks, callers)),
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await coord.close();
    await store.close();
    if (!given && !args.flag('keep')) rmSync(home, { recursive: true, force: true });
  }
}

await main();
