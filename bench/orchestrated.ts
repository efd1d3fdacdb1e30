/**
 * Orchestrated fan-out benchmark: one lead fanning out to N subagents through the REAL orchestrated
 * topology (executeRun → DBOS → lead loop → create_subagent/assign_task → Team → Scheduler → agent
 * loops), every model call answered by the fake provider over real HTTP (its own process, fixed
 * latency) with the scripted orchestrated policy (src/demo/orchestrated-policy.ts).
 *
 * Wave shape: the lead's first response creates all N subagents (explore profile) and assigns each one
 * task of `--task-steps` model calls (default 2: one `ls`, then the answer), split over `--lead-turns`
 * lead responses (default 1: all N tasks in one response). The run's scheduler (concurrency 64) then
 * runs them in ⌈N/64⌉ waves; the lead's final turn answers. The critical path with the concurrency limit:
 *   idealMs = latency × (Σ over assigning lead turns of (1 + ⌈tasks/concurrency⌉ × taskSteps) + 1)
 * (N = 1,000, 1 turn, 2 steps, 1 s: 1 + 16 × 2 + 1 = 34 s).
 *
 * Usage: npm run bench -- orchestrated [--n 1000] [--latency-ms 1000] [--concurrency 64|n] [--task-steps 2]
 *        [--lead-turns 1] [--pool 10] [--sample-ms 200] [--home DIR] [--keep] [--cpu-prof FILE] [--trace]
 *        [--workers K [--slots S]] [--postgres embedded|debian] [--max-connections M]
 * Prints one JSON line; keys are documented in bench/README.md. `--trace` prints, on stderr, how long
 * each event kind's append waited for its commit (see bench/lib/trace.ts). `--concurrency n` runs all
 * N tasks at once (one wave).
 *
 * `--workers K` (the fleet, issue 13): `spec.fleet` is set, so each subagent task is a session on the
 * fleet queue (workflow `<runId>/<agent>/<task>`) executed by one of K `colony worker` processes (S
 * sessions each, default ⌈concurrency / K⌉) on a throwaway Debian Postgres; the lead stays in this
 * process (the owner). Subagents' calls are then seen at the model server (its spans, server side);
 * workers' CPU and RSS count in the figures; dispatch latency is enqueue → the task's first call.
 * For the in-process side of a comparison, `--postgres debian` runs on the same kind of server.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance as perf } from 'node:perf_hooks';
import { recordNewRun } from '../src/cli/new-run.js';
import { newRunId } from '../src/core/ids.js';
import { createProvider } from '../src/model/index.js';
import type { ModelRecord, Provider } from '../src/model/types.js';
import type { RunSpec } from '../src/run/run-spec.js';
import { executeRun } from '../src/topology/execute-run.js';
import { computeMetrics } from '../src/view/metrics.js';
import { parseBenchArgs } from './lib/args.js';
import { openBenchDatabase, parseDatabaseKind } from './lib/bench-db.js';
import { BenchCleanup } from './lib/cleanup.js';
import { dispatchFigures, quantile, type SessionRow, sessionRows } from './lib/dispatch.js';
import { makeFixtureRepo } from './lib/fixture-repo.js';
import { type BenchFleet, startFleet } from './lib/fleet.js';
import { startModelServer } from './lib/model-server.js';
import { allProcStats, cachedTree, type ProcStat, RssSampler, treeCpuMs } from './lib/proc.js';
import { startProfile } from './lib/profile.js';
import { progress } from './lib/progress.js';
import { createTrace } from './lib/trace.js';

const MB = 1024 * 1024;
/** Placeholder key sent to the model server (a local endpoint needs none; never a real key). */
const BENCH_KEY = 'bench-not-a-secret';

/** One model call: when it left and came back (client side) or arrived and was answered (server side), epoch ms. */
interface CallSpan {
  agent: string;
  start: number;
  end: number;
}

const epochNow = () => performance.timeOrigin + performance.now();

/** Records when each agent's model calls leave and come back (client side), by system prompt. */
function observed(inner: Provider, spans: CallSpan[]): Provider {
  return {
    model: inner.model,
    async call(request, options) {
      const agent = /You are subagent "([^"]+)"/.exec(request.system)?.[1] ?? 'lead';
      const start = epochNow();
      const result = await inner.call(request, options);
      spans.push({ agent, start, end: epochNow() });
      return result;
    },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))] ?? 0;
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const n = args.number('n', 1000);
  const latencyMs = args.number('latency-ms', 1000);
  // `--concurrency n`: as many slots as tasks (all N at once, one wave).
  const concurrency = args.numberOrAll('concurrency', 64, n);
  const taskSteps = args.number('task-steps', 2);
  const leadTurns = Math.max(1, Math.min(n, args.number('lead-turns', 1)));
  const poolSize = args.number('pool', 10);
  const sampleMs = args.number('sample-ms', 200);
  const profileFile = args.string('cpu-prof');
  const workers = args.number('workers', 0);
  if (!Number.isInteger(workers) || workers < 0)
    throw new Error(`--workers must be 0 or more, not ${workers}`);
  const fleetRun = workers > 0;
  const slots = args.number('slots', Math.ceil(concurrency / Math.max(1, workers)));
  const dbKind = parseDatabaseKind(args.string('postgres'), fleetRun ? 'debian' : 'embedded');
  if (fleetRun && dbKind !== 'debian')
    throw new Error('--workers needs --postgres debian (the default with it)');
  const say = progress('orchestrated');
  const cleanup = new BenchCleanup();
  cleanup.installSignalHandlers();
  const scratch = mkdtempSync(join(tmpdir(), 'colony-orch-bench-'));
  if (!args.flag('keep')) {
    const forget = cleanup.guardFolder(scratch);
    cleanup.defer('scratch folder', () => {
      rmSync(scratch, { recursive: true, force: true });
      forget();
    });
  }
  const home = args.string('home') ?? join(scratch, 'home');

  // The plan: N tasks `sK:steps`, split into `leadTurns` lead responses ('/' separates them).
  const perTurn = Math.ceil(n / leadTurns);
  const turns: string[] = [];
  for (let t = 0; t * perTurn < n; t++) {
    const items: string[] = [];
    for (let i = t * perTurn; i < Math.min(n, (t + 1) * perTurn); i++) items.push(`s${i + 1}:${taskSteps}`);
    turns.push(items.join(','));
  }
  const waveCounts = turns.map((turn) => Math.ceil(turn.split(',').length / concurrency));
  const idealMs = latencyMs * (waveCounts.reduce((sum, waves) => sum + 1 + waves * taskSteps, 0) + 1);

  try {
    const fake = await startModelServer({ policy: 'orchestrated', latencyMs, cleanup });
    const db = await openBenchDatabase({
      kind: dbKind,
      home,
      poolSize,
      cleanup,
      maxConnections: args.number('max-connections', 400),
      statements: args.flag('pg-stats'),
    });
    const { store } = db;
    const pm = db.postmaster;
    say(`${dbKind} Postgres ready`);
    const repo = makeFixtureRepo(join(scratch, 'repo'));
    const model: ModelRecord = {
      id: 'openai-chat:fake',
      protocol: 'openai-chat',
      name: 'fake',
      baseUrl: fake.url,
      contextWindow: 1_000_000,
      maxOutput: 8_192,
      prices: null,
    };
    const spec: RunSpec = {
      runId: newRunId(),
      topology: 'orchestrated',
      repo: repo.dir,
      goal: `orchestrated benchmark, ${n} subagents. plan: ${turns.join(' / ')}`,
      baseRef: 'HEAD',
      baseCommit: repo.commit,
      model: model.id,
      baseUrl: fake.url,
      customModels: [{ ...model, protocol: 'openai-chat', baseUrl: fake.url }],
      concurrency,
      maxSteps: leadTurns + 5,
      subagentMaxSteps: taskSteps + 2,
      profile: 'explore',
      stream: false,
      modelTimeoutMs: 120_000,
      maxRetries: 4,
      bashTimeoutS: 60,
      ...(fleetRun ? { fleet: {} } : {}),
    };
    await recordNewRun(store, spec);
    const clientSpans: CallSpan[] = [];
    const trace = args.flag('trace') ? createTrace() : null;
    if (trace) trace.watchLog(store.log);
    const provider = observed(
      createProvider(model, { apiKey: BENCH_KEY, timeoutMs: 120_000, maxRetries: 4 }),
      clientSpans,
    );
    const fleet: BenchFleet | null = fleetRun
      ? await startFleet({
          count: workers,
          slots,
          databaseUrl: db.url as string,
          dir: join(scratch, 'workers'),
          env: { OPENAI_API_KEY: BENCH_KEY },
          cleanup,
        })
      : null;
    if (fleet) say(`${workers} worker(s) of ${slots} slot(s) joined`);
    const workerPids = new Set(fleet?.workers.map((w) => w.pid) ?? []);

    // New backends are found every 5 s (a /proc scan costs ~1 ms per process, on this event loop):
    // the postmaster and its backends, this process and its launchers (core/launcher.ts: its Node
    // children other than the workers, the model server and the reaper), the workers and theirs.
    const tree = cachedTree([pm, process.pid, ...workerPids], 5000);
    const isLauncher = (s: ProcStat) =>
      s.ppid === process.pid &&
      s.comm === 'node' &&
      !workerPids.has(s.pid) &&
      s.pid !== fake.pid &&
      s.pid !== cleanup.reaperPid;
    const rss = new RssSampler(
      (): ProcStat[] => {
        const stats = tree();
        const own = stats.filter(
          (s) => s.pid === process.pid || s.pid === pm || s.ppid === pm || isLauncher(s),
        );
        return fleet ? [...own, ...fleet.procs(stats)] : own;
      },
      (s) =>
        s.pid === pm || s.ppid === pm
          ? 'postgres'
          : workerPids.has(s.pid) || workerPids.has(s.ppid)
            ? 'workers'
            : s.pid === process.pid
              ? 'owner'
              : 'launchers',
    );
    const profiler = profileFile ? await startProfile(profileFile) : null;
    rss.start(sampleMs);
    const before = allProcStats();
    const workerCpuBefore = fleet?.cpuMs(before) ?? 0;
    const pgCpuBefore = treeCpuMs(pm, before);
    const launcherCpuBefore = before.filter(isLauncher).reduce((sum, l) => sum + l.cpuMs, 0);
    const cpuBefore = process.cpuUsage();
    const eluBefore = perf.eventLoopUtilization();
    const t0 = performance.now();
    const result = await executeRun({
      store,
      spec,
      provider,
      env: { ...process.env, OPENAI_API_KEY: BENCH_KEY },
      signal: new AbortController().signal,
      resumed: false,
    });
    const runMs = performance.now() - t0;
    say(`run ended in ${(runMs / 1000).toFixed(1)} s`);
    await profiler?.stop();
    const cpu = process.cpuUsage(cpuBefore);
    const elu = perf.eventLoopUtilization(eluBefore).utilization;
    const after = allProcStats();
    const workerCpuMs = fleet ? fleet.cpuMs(after) - workerCpuBefore : 0;
    const pgCpuMs = treeCpuMs(pm, after) - pgCpuBefore;
    const launcherCpuMs = after.filter(isLauncher).reduce((sum, l) => sum + l.cpuMs, 0) - launcherCpuBefore;
    rss.stop();
    if (!result.ok) throw new Error(fleet ? `${result.error}\nworkers:\n${fleet.tails()}` : result.error);

    // Makespan: the lead's first request leaving → its final answer back (prepare/finalize apart),
    // client side: the lead runs in this process in both modes.
    const clientLead = clientSpans.filter((s) => s.agent === 'lead').sort((a, b) => a.start - b.start);
    const firstLead = clientLead[0];
    const lastLead = clientLead.at(-1);
    if (!firstLead || !lastLead) throw new Error('the lead made no model call');
    const makespanMs = lastLead.end - firstLead.start;

    // The rest compares the lead's and subagents' calls on one clock. In this process, the client's
    // spans; on a fleet the subagents' calls are made by the workers, so all spans are the model
    // server's (arrival → answer ready, its clock).
    const observedAtServer = await fake.observed();
    const spans: CallSpan[] = fleet ? observedAtServer.spans : clientSpans;
    const lead = spans.filter((s) => s.agent === 'lead').sort((a, b) => a.start - b.start);

    // Start overhead: each subagent's first request vs. the moment its start could go. The first
    // `concurrency` starts of a lead turn could go when that turn's response came back; each later
    // start takes the slot of the j-th task to finish (FIFO), i.e. its last answer came back.
    const sub = spans.filter((s) => s.agent !== 'lead');
    const firstByAgent = new Map<string, number>();
    const lastByAgent = new Map<string, number>();
    for (const s of sub) {
      if (s.start < (firstByAgent.get(s.agent) ?? Number.POSITIVE_INFINITY))
        firstByAgent.set(s.agent, s.start);
      if (s.end > (lastByAgent.get(s.agent) ?? 0)) lastByAgent.set(s.agent, s.end);
    }
    const firstWave: number[] = [];
    const later: number[] = [];
    for (let t = 0; t < lead.length - 1; t++) {
      const turnEnd = (lead[t] as CallSpan).end;
      const nextTurn = (lead[t + 1] as CallSpan).start;
      const starts = [...firstByAgent.values()]
        .filter((x) => x >= turnEnd && x < nextTurn)
        .sort((a, b) => a - b);
      const ends = [...lastByAgent.entries()]
        .filter(([agent]) => {
          const first = firstByAgent.get(agent) ?? 0;
          return first >= turnEnd && first < nextTurn;
        })
        .map(([, end]) => end)
        .sort((a, b) => a - b);
      starts.forEach((start, i) => {
        if (i < concurrency) firstWave.push(start - turnEnd);
        else later.push(start - (ends[i - concurrency] ?? start));
      });
    }
    firstWave.sort((a, b) => a - b);
    later.sort((a, b) => a - b);

    // Step gap: one subagent's answer back → its next request leaving (the tool run and the request
    // build; the ideal counts it as 0). Lead gap: a turn's last task answer back → the lead's next
    // request leaving (the task's last commits, the lead's tool results).
    const byAgent = new Map<string, CallSpan[]>();
    for (const s of sub) byAgent.set(s.agent, [...(byAgent.get(s.agent) ?? []), s]);
    const stepGaps: number[] = [];
    for (const calls of byAgent.values()) {
      calls.sort((a, b) => a.start - b.start);
      for (let i = 1; i < calls.length; i++)
        stepGaps.push((calls[i] as CallSpan).start - (calls[i - 1] as CallSpan).end);
    }
    stepGaps.sort((a, b) => a - b);
    // A model call as this process sees it (the fake server's latency plus HTTP and this event loop).
    const callMs = sub.map((s) => s.end - s.start).sort((a, b) => a - b);
    const leadGaps: number[] = [];
    for (let t = 1; t < lead.length; t++) {
      const prev = (lead[t - 1] as CallSpan).end;
      const next = (lead[t] as CallSpan).start;
      const lastAnswer = Math.max(...sub.filter((s) => s.end > prev && s.end <= next).map((s) => s.end));
      if (Number.isFinite(lastAnswer)) leadGaps.push(next - lastAnswer);
    }

    if (trace) process.stderr.write(`${trace.report()}\n`);
    if (db.topStatements)
      process.stderr.write(
        `${await db.topStatements().catch((e: Error) => `pg_stat_statements: ${e.message}`)}\n`,
      );
    const counted = await store.pool.query<{ events: string }>(
      'SELECT count(*) AS events FROM colony.events WHERE run_id = $1',
      [spec.runId],
    );
    const events = Number(counted.rows[0]?.events ?? 0);
    const runEvents = await store.log.read(spec.runId);
    const metrics = computeMetrics(runEvents);
    // Fleet: each task a session on the queue (`<runId>/<agent>/<task>`), run by a worker.
    const tasksAssigned = runEvents.filter((e) => e.kind === 'task.assigned').length;
    const sessions: SessionRow[] = fleet && db.url ? await sessionRows(db.url, spec.runId) : [];
    const dispatch = fleet ? dispatchFigures(sessions, observedAtServer.spans) : null;
    // Fleet: where a first-wave task's time before its enqueue goes — the lead's answer back → its
    // task.assigned row written (the log's chain is one writer per run), then → its session enqueued.
    const assignedAfterTurn: number[] = [];
    const enqueuedAfterAssigned: number[] = [];
    const sessionByTask = new Map(sessions.map((row) => [row.task, row]));
    for (const e of runEvents) {
      if (e.kind !== 'task.assigned') continue;
      const at = Date.parse(e.ts);
      const turnEnd = lead
        .map((c) => c.end)
        .filter((end) => end <= at + 1)
        .pop();
      if (turnEnd !== undefined) assignedAfterTurn.push(at - turnEnd);
      const row = sessionByTask.get(e.data.task);
      if (row) enqueuedAfterAssigned.push(row.createdAt - at);
    }
    // Tasks that did not come back done, counted by what their result says (its first 80 characters).
    const tasksNotDone: Record<string, number> = {};
    for (const e of runEvents)
      if (e.kind === 'task.finished' && e.data.status !== 'done') {
        const why = `${e.data.status}: ${e.data.result.split('\n').slice(-1)[0]?.slice(0, 80) ?? ''}`;
        tasksNotDone[why] = (tasksNotDone[why] ?? 0) + 1;
      }
    const placedByWorker: Record<string, number> = {};
    for (const e of runEvents)
      if (e.kind === 'agent.placed') placedByWorker[e.data.worker] = (placedByWorker[e.data.worker] ?? 0) + 1;
    const onWorkers =
      tasksAssigned > 0 &&
      sessions.filter((row) => row.task !== null && row.status === 'SUCCESS').length === tasksAssigned;
    if (fleet && !onWorkers)
      process.stderr.write(
        `bench orchestrated: ${tasksAssigned} task(s) assigned, ${sessions.length} fleet session(s): the tasks did not run on the workers (is orchestrated on the fleet in this build? src/topology/orchestrated)\n`,
      );
    const r = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
    console.log(
      JSON.stringify({
        n,
        latencyMs,
        concurrency,
        taskSteps,
        postgres: dbKind,
        workers,
        ...(fleet
          ? {
              slots,
              sessions: sessions.length,
              placedByWorker,
              dispatchP50Ms: r(quantile(dispatch?.dispatchMs ?? [], 0.5), 1),
              dispatchP99Ms: r(quantile(dispatch?.dispatchMs ?? [], 0.99), 1),
              dispatchMaxMs: r(quantile(dispatch?.dispatchMs ?? [], 1), 1),
              dispatchMeasured: dispatch?.measured ?? 0,
              dequeueP50Ms: quantile(dispatch?.dequeueMs ?? [], 0.5),
              dequeueP99Ms: quantile(dispatch?.dequeueMs ?? [], 0.99),
              assignedAfterTurnMsP50: Math.round(quantile(assignedAfterTurn, 0.5)),
              assignedAfterTurnMsMax: Math.round(quantile(assignedAfterTurn, 1)),
              enqueuedAfterAssignedMsP50: Math.round(quantile(enqueuedAfterAssigned, 0.5)),
              enqueuedAfterAssignedMsMax: Math.round(quantile(enqueuedAfterAssigned, 1)),
              spans: 'server',
            }
          : { spans: 'client' }),
        leadTurns: turns.length,
        waves: waveCounts.reduce((a, b) => a + b, 0),
        makespanMs: Math.round(makespanMs),
        idealMs,
        ratio: r(makespanMs / idealMs),
        runMs: Math.round(runMs),
        startOverheadMsMean: r(mean(later), 1),
        startOverheadMsP50: r(percentile(later, 0.5), 1),
        startOverheadMsP99: r(percentile(later, 0.99), 1),
        firstWaveStartMsP50: r(percentile(firstWave, 0.5), 1),
        firstWaveStartMsMax: r(percentile(firstWave, 1), 1),
        stepGapMsP50: r(percentile(stepGaps, 0.5), 1),
        stepGapMsP99: r(percentile(stepGaps, 0.99), 1),
        subagentCallMsP50: r(percentile(callMs, 0.5), 1),
        subagentCallMsP99: r(percentile(callMs, 0.99), 1),
        leadGapMsMax: r(Math.max(0, ...leadGaps), 1),
        peakRssMB: r(rss.peakBytes / MB, 1),
        peakNodeRssMB: r((rss.peakByPid.get(process.pid) ?? 0) / MB, 1),
        // Postgres's summed RSS grows with its backends (each counts the shared pages it touched).
        postgresProcsMax: rss.mostProcsByGroup.get('postgres') ?? 0,
        // Each group's own peak of summed RSS (they need not peak together; shared memory counts per process).
        peakRssByGroupMB: Object.fromEntries(
          [...rss.peakByGroup].map(([group, bytes]) => [group, r(bytes / MB, 1)]),
        ),
        ...(fleet
          ? {
              peakWorkerRssMB: r(
                Math.max(0, ...fleet.workers.map((w) => rss.peakByPid.get(w.pid) ?? 0)) / MB,
                1,
              ),
            }
          : {}),
        nodeCpuMs: Math.round((cpu.user + cpu.system) / 1000),
        launcherCpuMs,
        workerCpuMs,
        pgCpuMs,
        colonyCpuMs: Math.round((cpu.user + cpu.system) / 1000 + launcherCpuMs + workerCpuMs + pgCpuMs),
        eventLoopBusy: r(elu, 2),
        events,
        status: result.summary.status,
        tasksDone: metrics.tasksDone,
        tasksNotDone,
        criticalSteps: metrics.criticalSteps,
        totalSteps: metrics.totalSteps,
        parallelism: r(metrics.parallelism, 2),
        tasksAssigned,
        modelCalls: spans.length,
        ...(fleet ? { checks: { onWorkers }, ok: onWorkers && result.summary.status === 'succeeded' } : {}),
        note: `peakRssMB sums this node process, its launchers, the ${dbKind} Postgres (postmaster ${pm} and its backends)${fleet ? ' and every worker with its launchers' : ''}; the model server is its own process and not counted; host ${hostname()}`,
      }),
    );
  } finally {
    await cleanup.run();
    say('cleaned up');
  }
}

main().catch((err: unknown) => {
  console.error(`bench orchestrated: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
});
