/**
 * Peers scale benchmark (issue 4): N identical peers (default 1,000) on a synthetic repository of N
 * independent broken files, with the scripted peer of bench/lib/peers-policy.ts (random picks, fixed
 * model latency), through the real peers topology: executeRun → DBOS → claims, shared context,
 * integration queue, worktrees, goal check. Prints one JSON line (keys in bench/README.md).
 *
 * Checks (the `checks` object; `ok` is their conjunction): exactly one landed PATCH per file, claim
 * conflicts > 0, double grants exactly 0, no lost commits (every submitted commit pinned in the hub,
 * every landed one on hub main), the hash chain verifies, the run succeeded.
 *
 * Usage: npm run bench -- peers [--n 1000] [--files N] [--latency-ms 1000] [--concurrency 64]
 *        [--mode claims|board] [--home DIR] [--keep] [--sample-ms 250] [--sandbox off|on]
 *        [--merge-check trivial|tests] [--cpu-prof FILE] (diagnosis: a CPU profile of executeRun)
 *        [--workers K [--slots S]] [--model-server] [--postgres embedded|debian] [--max-connections M]
 *        [--pg-stats] (diagnosis, Debian Postgres: the costliest statements, on stderr)
 *
 * `--mode` (bench/lib/peers-policy.ts): `claims` (default) finds work by grep + free-form claims;
 * `board` through the task board (one peer adds a task per broken file, the others claim_next).
 *
 * `--workers K` (the fleet, issue 13): the same run with `spec.fleet` set, its peers executed by K
 * `colony worker` processes (S sessions each, default ⌈concurrency / K⌉) on a throwaway Debian
 * Postgres; this process is the owner (hub, merge queue, gateway). The model is then the model server
 * (bench/lib/model-server-main.ts, the same policy over HTTP in its own process: workers are other
 * processes); `--model-server` does the same for an in-process run. Workers' CPU and RSS count in the
 * figures; dispatch latency (enqueue → first model call) is measured per session. With `--keep` the
 * run's events are written to the scratch folder (the database goes with the benchmark).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordNewRun } from '../src/cli/new-run.js';
import { checkGrantHistory } from '../src/coord/grant-history.js';
import type { EventKind, StoredEvent } from '../src/core/events.js';
import { runDir } from '../src/core/home.js';
import { newRunId } from '../src/core/ids.js';
import { createProvider, createScriptedProvider } from '../src/model/index.js';
import type { ModelRecord, ModelRequest, Provider } from '../src/model/types.js';
import type { RunSpec } from '../src/run/run-spec.js';
import { executeRun } from '../src/topology/execute-run.js';
import { parseBenchArgs } from './lib/args.js';
import { openBenchDatabase, parseDatabaseKind } from './lib/bench-db.js';
import { BenchCleanup } from './lib/cleanup.js';
import { coordinationChars } from './lib/coordination-share.js';
import { dispatchFigures, quantile, sessionRows } from './lib/dispatch.js';
import { commitFixture } from './lib/fixture-repo.js';
import { type BenchFleet, startFleet } from './lib/fleet.js';
import { type ModelServer, startModelServer } from './lib/model-server.js';
import { fileName, type PeersBenchMode, peersBenchPolicy } from './lib/peers-policy.js';
import { allProcStats, cachedTree, type ProcStat, RssSampler, treeCpuMs } from './lib/proc.js';
import { startProfile } from './lib/profile.js';
import { progress } from './lib/progress.js';

const MB = 1024 * 1024;
/** Placeholder key sent to the model server (a local endpoint needs none; never a real key). */
const BENCH_KEY = 'bench-not-a-secret';

/**
 * `--merge-check tests`: a node:test suite the merge check runs on every candidate (~1 s here): each
 * file is either still broken or fixed as the task says, and a checksum test that does ~0.7 s of work.
 */
const NODE_TESTS = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
test('every file is broken or fixed', () => {
  for (const name of readdirSync('files')) {
    const text = readFileSync('files/' + name, 'utf8');
    assert.ok(text === 'broken\\n' || text === 'fixed files/' + name + '\\n', name + ': ' + text);
  }
});
test('checksums are stable', () => {
  const data = Buffer.alloc(1 << 20, 7);
  let a = '';
  for (let i = 0; i < 600; i++) a = createHash('sha256').update(data).update(a).digest('hex');
  assert.equal(a.length, 64);
});
`;

function syntheticRepo(dir: string, files: number, tests: boolean): { dir: string; commit: string } {
  const contents: Record<string, string> = {
    'README.md': `# ${files} independent files\n\nEach files/f*.txt must not say broken.\n`,
    ...(tests ? { 'test/files.test.mjs': NODE_TESTS } : {}),
  };
  for (let i = 0; i < files; i++) contents[fileName(i)] = 'broken\n';
  return commitFixture(dir, contents, 'synthetic repository');
}

/** Counts request characters spent on coordination (tool calls and results) vs everything else. */
function measuringProvider(inner: Provider, chars: { coordination: number; total: number }): Provider {
  return {
    model: inner.model,
    call(request: ModelRequest, options) {
      const counted = coordinationChars(request);
      chars.coordination += counted.coordination;
      chars.total += counted.total;
      return inner.call(request, options);
    },
  };
}

/** Makespan of running each peer's model time on `slots` slots in start order (the semaphore's FIFO). */
function listSchedule(durations: number[], slots: number): number {
  const free = Array.from({ length: Math.max(1, slots) }, () => 0);
  for (const d of durations) {
    let best = 0;
    for (let i = 1; i < free.length; i++) if ((free[i] as number) < (free[best] as number)) best = i;
    free[best] = (free[best] as number) + d;
  }
  return Math.max(...free);
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
};

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const n = args.number('n', 1000);
  const files = args.number('files', n);
  const latencyMs = args.number('latency-ms', 1000);
  const concurrency = args.number('concurrency', 64);
  const sampleMs = args.number('sample-ms', 250);
  // off (default, as the figures in bench/README.md were taken) or on: every bash call and check in bwrap.
  const sandboxed = args.string('sandbox') === 'on';
  const profileFile = args.string('cpu-prof');
  // trivial (default): `test -d files`; tests: `node --test` on the repository's test suite.
  const mergeCheck = args.string('merge-check') ?? 'trivial';
  if (mergeCheck !== 'trivial' && mergeCheck !== 'tests')
    throw new Error(`--merge-check must be trivial or tests, not ${mergeCheck}`);
  const mode = (args.string('mode') ?? 'claims') as PeersBenchMode;
  if (mode !== 'claims' && mode !== 'board') throw new Error(`--mode must be claims or board, not ${mode}`);
  const workers = args.number('workers', 0);
  if (!Number.isInteger(workers) || workers < 0)
    throw new Error(`--workers must be 0 or more, not ${workers}`);
  const fleetRun = workers > 0;
  const slots = args.number('slots', Math.ceil(concurrency / Math.max(1, workers)));
  // Workers are other processes: they reach the model over HTTP, and the database over TCP.
  const overHttp = fleetRun || args.flag('model-server');
  const dbKind = parseDatabaseKind(args.string('postgres'), fleetRun ? 'debian' : 'embedded');
  if (fleetRun && dbKind !== 'debian')
    throw new Error('--workers needs --postgres debian (the default with it)');
  const say = progress('peers');
  const cleanup = new BenchCleanup();
  cleanup.installSignalHandlers();
  const scratch = mkdtempSync(join(tmpdir(), 'colony-bench-peers-'));
  if (!args.flag('keep')) {
    const forget = cleanup.guardFolder(scratch);
    cleanup.defer('scratch folder', () => {
      rmSync(scratch, { recursive: true, force: true });
      forget();
    });
  }
  const home = args.string('home') ?? join(scratch, 'home');
  try {
    const db = await openBenchDatabase({
      kind: dbKind,
      home,
      poolSize: 16,
      cleanup,
      maxConnections: args.number('max-connections', 400),
      statements: args.flag('pg-stats'),
    });
    const { store } = db;
    say(`${dbKind} Postgres ready`);
    const pm = db.postmaster;
    const server: ModelServer | null = overHttp
      ? await startModelServer({ policy: `peers-${mode}`, latencyMs, promptCache: true, cleanup })
      : null;
    const repo = syntheticRepo(join(scratch, 'repo'), files, mergeCheck === 'tests');
    const httpModel: ModelRecord | null = server
      ? {
          id: 'openai-chat:fake',
          protocol: 'openai-chat',
          name: 'fake',
          baseUrl: server.url,
          contextWindow: 1_000_000,
          maxOutput: 8_192,
          prices: null,
        }
      : null;
    const spec: RunSpec = {
      runId: newRunId(),
      topology: 'peers',
      agents: n,
      concurrency,
      repo: repo.dir,
      goal: `Fix every file under files/: none may say "broken". There are ${files} independent files; claim one at a time.`,
      baseRef: 'HEAD',
      baseCommit: repo.commit,
      ...(httpModel
        ? { model: httpModel.id, baseUrl: httpModel.baseUrl, customModels: [httpModel] }
        : { model: 'scripted', customModels: [] }),
      verify: '! grep -rq broken files',
      mergeVerify: mergeCheck === 'tests' ? 'node --test test/' : 'test -d files',
      idleMs: 30 * 60_000,
      deadlineAt: new Date(Date.now() + 6 * 3_600_000).toISOString(),
      maxSteps: 200,
      profile: 'coder',
      stream: false,
      modelTimeoutMs: 120_000,
      // The in-process scripted model never fails; over HTTP a dropped connection is retried.
      maxRetries: httpModel ? 4 : 0,
      bashTimeoutS: 60,
      sandbox: {
        enabled: sandboxed,
        network: false,
        passEnv: [],
        ...(sandboxed ? {} : { offReason: 'bench' }),
      },
      ...(fleetRun ? { fleet: {} } : {}),
    };
    await recordNewRun(store, spec);
    const chars = { coordination: 0, total: 0 };
    const provider = httpModel
      ? createProvider(httpModel, { apiKey: BENCH_KEY, timeoutMs: 120_000, maxRetries: 4 })
      : measuringProvider(
          createScriptedProvider(peersBenchPolicy(mode), { latencyMs, promptCache: true }),
          chars,
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
    // One /proc scan every 2 s (with thousands of git processes a scan is costly, and it runs in the
    // measured process): the postmaster and its backends, this process, its workers and children.
    const tree = cachedTree([pm, process.pid, ...workerPids], 2000);
    // This process's children that are Node: the launchers (core/launcher.ts) that start its git
    // (not the workers, nor the model server and the reaper, which are not Colony).
    const isLauncher = (s: ProcStat) =>
      s.ppid === process.pid &&
      s.comm === 'node' &&
      !workerPids.has(s.pid) &&
      s.pid !== server?.pid &&
      s.pid !== cleanup.reaperPid;
    const launchers = () => tree().filter(isLauncher);
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
    rss.start(sampleMs);
    const profiler = profileFile ? await startProfile(profileFile) : null;
    const before = allProcStats();
    const workerCpuBefore = fleet?.cpuMs(before) ?? 0;
    const pgCpuBefore = treeCpuMs(pm, before);
    const cpuBefore = process.cpuUsage();
    const t0 = performance.now();
    const result = await executeRun({
      store,
      spec,
      provider,
      env: { ...process.env, OPENAI_API_KEY: BENCH_KEY },
      signal: new AbortController().signal,
      resumed: false,
    });
    const wallMs = performance.now() - t0;
    say(`run ended in ${(wallMs / 1000).toFixed(1)} s`);
    const cpu = process.cpuUsage(cpuBefore);
    const after = allProcStats();
    const workerCpuMs = fleet ? fleet.cpuMs(after) - workerCpuBefore : 0;
    const pgCpuMs = treeCpuMs(pm, after) - pgCpuBefore;
    await profiler?.stop();
    rss.stop();
    if (!result.ok) throw new Error(fleet ? `${result.error}\nworkers:\n${fleet.tails()}` : result.error);

    if (db.topStatements)
      process.stderr.write(
        `${await db.topStatements().catch((e: Error) => `pg_stat_statements: ${e.message}`)}\n`,
      );
    const events = await store.log.read(spec.runId);
    if (args.flag('keep')) {
      // The database goes with the benchmark: keep the run's log for a look afterwards.
      const file = join(scratch, 'events.jsonl');
      writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n'));
      process.stderr.write(`bench peers: the run's events are in ${file}\n`);
    }
    const of = <K extends EventKind>(kind: K) => events.filter((e) => e.kind === kind) as StoredEvent<K>[];
    const at = (e: StoredEvent) => Date.parse(e.ts);

    // One PATCH per file.
    const patchesPerFile = new Map<string, number>();
    for (const e of of('context.posted'))
      if (e.data.kind === 'PATCH')
        for (const f of e.data.scope ?? []) patchesPerFile.set(f, (patchesPerFile.get(f) ?? 0) + 1);
    const filesWithOnePatch = Array.from({ length: files }, (_, i) => fileName(i)).filter(
      (f) => patchesPerFile.get(f) === 1,
    ).length;
    const extraPatches = [...patchesPerFile.values()].filter((c) => c > 1).length;

    // No lost commits: every submitted commit is pinned in the hub, every landed commit is on main.
    const hub = join(runDir(home, spec.runId), 'hub.git');
    const gitHub = (...a: string[]) =>
      execFileSync('git', a, { cwd: hub, encoding: 'utf8', maxBuffer: 256 * MB });
    const pinned = new Map(
      gitHub('for-each-ref', '--format=%(refname) %(objectname)', 'refs/colony/mr/')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [ref, commit] = line.split(' ');
          return [Number(ref?.split('/').pop()), commit] as const;
        }),
    );
    const onMain = new Set(gitHub('rev-list', 'main').trim().split('\n'));
    const lostSubmitted = of('merge.requested').filter((e) => pinned.get(e.data.mr) !== e.data.commit).length;
    const lostLanded = of('merge.landed').filter((e) => !onMain.has(e.data.commit)).length;

    const grants = checkGrantHistory(events);
    const conflicts = of('claim.conflict').length;

    // Ideal: each peer's model calls x latency, scheduled on `concurrency` slots in start order.
    const callsByPeer = new Map<string, number>();
    for (const e of of('model.response'))
      callsByPeer.set(e.agent ?? '', (callsByPeer.get(e.agent ?? '') ?? 0) + 1);
    const peerOrder = of('agent.started').map((e) => e.agent ?? '');
    const idealMs = listSchedule(
      peerOrder.map((p) => (callsByPeer.get(p) ?? 0) * latencyMs),
      concurrency,
    );
    // Integration: time peers spent inside merge_request and merge_status (waiting for the queue), and merge latency.
    const mergeToolMs = of('tool.finished')
      .filter((e) => e.data.name === 'merge_request' || e.data.name === 'merge_status')
      .reduce((sum, e) => sum + e.data.durationMs, 0);
    const lifetimes = new Map<string, number>();
    for (const e of of('agent.started')) lifetimes.set(e.agent ?? '', at(e));
    let peerMs = 0;
    for (const e of of('agent.finished')) peerMs += at(e) - (lifetimes.get(e.agent ?? '') ?? at(e));
    const requestedAt = new Map(of('merge.requested').map((e) => [e.data.mr, at(e)]));
    const mergeLatency = [...of('merge.landed'), ...of('merge.rejected')].map(
      (e) => at(e) - (requestedAt.get(e.data.mr) ?? at(e)),
    );
    const tokens = result.summary.tokens;
    const verified = await store.log.verify(spec.runId);

    // The model server's view (over HTTP): every call's span, and the coordination share there.
    const observed = server ? await server.observed() : null;
    if (observed) Object.assign(chars, observed.chars);
    // Fleet: where the sessions ran, and each one's enqueue → its first model call.
    const placed = of('agent.placed');
    const placedAgents = new Set(placed.map((e) => e.agent));
    const placedByWorker: Record<string, number> = {};
    for (const e of placed) placedByWorker[e.data.worker] = (placedByWorker[e.data.worker] ?? 0) + 1;
    const dispatch =
      fleet && observed && db.url
        ? dispatchFigures(await sessionRows(db.url, spec.runId), observed.spans)
        : null;
    const checks = {
      onePatchPerFile: filesWithOnePatch === files && extraPatches === 0,
      // Free-form claims must meet real contention; the board hands each task out once.
      conflictsPositive: mode === 'board' || conflicts > 0,
      doubleGrantsZero: grants.violations.length === 0,
      noLostCommits: lostSubmitted === 0 && lostLanded === 0,
      chainVerified: verified.ok,
      succeeded: result.summary.status === 'succeeded',
      // A fleet run: every peer that started ran on a worker.
      ...(fleet ? { onWorkers: peerOrder.every((p) => placedAgents.has(p)) && placed.length > 0 } : {}),
    };
    const r = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
    console.log(
      JSON.stringify({
        n,
        files,
        latencyMs,
        concurrency,
        mode,
        status: result.summary.status,
        reason: result.summary.reason,
        sandbox: sandboxed,
        postgres: dbKind,
        model: server ? 'model-server' : 'in-process',
        workers,
        ...(fleet
          ? {
              slots,
              placedByWorker,
              sessions: dispatch?.sessions ?? 0,
              dispatchP50Ms: r(quantile(dispatch?.dispatchMs ?? [], 0.5), 1),
              dispatchP99Ms: r(quantile(dispatch?.dispatchMs ?? [], 0.99), 1),
              dispatchMaxMs: r(quantile(dispatch?.dispatchMs ?? [], 1), 1),
              dispatchMeasured: dispatch?.measured ?? 0,
              dequeueP50Ms: quantile(dispatch?.dequeueMs ?? [], 0.5),
              dequeueP99Ms: quantile(dispatch?.dequeueMs ?? [], 0.99),
            }
          : {}),
        wallMs: Math.round(wallMs),
        idealMs,
        ratio: r(wallMs / idealMs),
        modelCalls: of('model.response').length,
        callsPerPeer: r(of('model.response').length / n, 2),
        peersStarted: peerOrder.length,
        merges: {
          requested: of('merge.requested').length,
          landed: of('merge.landed').length,
          rejected: of('merge.rejected').length,
          rejectedBy: Object.fromEntries(
            [...new Set(of('merge.rejected').map((e) => e.data.reason))].map((reason) => [
              reason,
              of('merge.rejected').filter((e) => e.data.reason === reason).length,
            ]),
          ),
        },
        mergeCheck,
        batches: new Set(of('merge.landed').map((e) => e.data.batch.join(','))).size,
        landedPerMinute: r(
          of('merge.landed').length /
            Math.max(
              1 / 60,
              (Math.max(...of('merge.landed').map(at)) - Math.min(...of('merge.requested').map(at))) / 60_000,
            ),
          1,
        ),
        mergeLatencyMs: {
          p50: percentile(mergeLatency, 0.5),
          p95: percentile(mergeLatency, 0.95),
          max: percentile(mergeLatency, 1),
        },
        integrationShare: r(mergeToolMs / Math.max(1, peerMs)),
        claimConflicts: conflicts,
        doubleGrants: grants.violations.length,
        filesWithOnePatch,
        lostCommits: lostSubmitted + lostLanded,
        events: events.length,
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
        launchers: launchers().length,
        // Launchers start on first use, inside the run: their CPU so far is all the run's.
        launcherCpuS: r(launchers().reduce((sum, l) => sum + l.cpuMs, 0) / 1000, 1),
        nodeCpuS: r((cpu.user + cpu.system) / 1e6, 1),
        // The workers and their launchers over the run (they started before it: the difference).
        workerCpuS: r(workerCpuMs / 1000, 1),
        pgCpuS: r(pgCpuMs / 1000, 1),
        colonyCpuS: r(
          ((cpu.user + cpu.system) / 1000 +
            launchers().reduce((sum, l) => sum + l.cpuMs, 0) +
            workerCpuMs +
            pgCpuMs) /
            1000,
          1,
        ),
        ...(observed ? { fakeRequests: observed.spans.length } : {}),
        inputTokens: tokens.input,
        cachedInputTokens: tokens.cachedInput,
        outputTokens: tokens.output,
        coordinationInputShare: r(chars.coordination / Math.max(1, chars.total)),
        checks,
        ok: Object.values(checks).every(Boolean),
        note: "idealMs = each peer's model calls x latency, list-scheduled on `concurrency` slots in start order; integrationShare = time peers waited in merge_request / peer lifetime; coordinationInputShare = request chars in coordination tool calls+results / all request chars (system prompt included); peakRssMB and colonyCpuS count this process (the owner), its launchers, Postgres and, with --workers, every worker and its launchers; git's own CPU is in none of them",
      }),
    );
  } finally {
    await cleanup.run();
    say('cleaned up');
  }
}

main().catch((err: unknown) => {
  console.error(`bench peers: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
});
