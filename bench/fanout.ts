/**
 * Fanout benchmark: N agents in one run, all started at once, each making 5 `ls` tool-call steps and
 * a final answer against the fake OpenAI Chat server (its own process, fixed latency), through the
 * real agent loop, event log and DBOS (one workflow per run; the agents run inside its `work` step).
 * Prints one JSON line; keys and units are documented in bench/README.md.
 *
 * Usage: npm run bench -- fanout [--n 1000] [--latency-ms 1000] [--start-batch 50] [--home DIR] [--keep]
 *        [--pool 10] [--sample-ms 200]
 * Diagnosis: [--trace] (where an agent's time goes, on stderr) [--cpu-prof FILE] (profile of the
 * makespan) [--no-dbos] (the same phases without DBOS).
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance as perf } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Budget } from '../src/agent/budget.js';
import { type AgentOutcome, runAgent } from '../src/agent/loop.js';
import { toolsForProfile } from '../src/agent/profiles.js';
import { summariseRepo } from '../src/agent/repo-summary.js';
import { buildSystemPrompt } from '../src/agent/system-prompt.js';
import { recordNewRun } from '../src/cli/new-run.js';
import { newRunId } from '../src/core/ids.js';
import { createScrubber, secretValuesFromEnv } from '../src/core/secrets.js';
import { createProvider, resolveModel } from '../src/model/index.js';
import { executeDurably, type RunPhases } from '../src/run/durable.js';
import type { RunSpec } from '../src/run/run-spec.js';
import { embeddedPaths, openStore, type Store } from '../src/store/index.js';
import { parseBenchArgs } from './lib/args.js';
import { startFakeServer } from './lib/fake-server.js';
import { makeFixtureRepo } from './lib/fixture-repo.js';
import { allProcStats, cachedTree, type ProcStat, RssSampler, readProcStat, treeCpuMs } from './lib/proc.js';
import { startProfile } from './lib/profile.js';
import { createTrace } from './lib/trace.js';

/** Model calls per agent in the `fanout` scenario: 5 tool-call steps, then the final answer. */
const CALLS_PER_AGENT = 6;
const MB = 1024 * 1024;

interface WorkFigures {
  makespanMs: number;
  nodeCpuMs: number;
  pgCpuMs: number;
  fakeCpuMs: number;
  /** Share of the makespan this process's event loop was busy (0..1). */
  eventLoopBusy: number;
  outcomes: AgentOutcome[];
}

function postmasterPid(home: string): number | null {
  try {
    const pid = Number(readFileSync(join(embeddedPaths(home).data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const n = args.number('n', 1000);
  const latencyMs = args.number('latency-ms', 1000);
  const poolSize = args.number('pool', 10);
  const sampleMs = args.number('sample-ms', 200);
  const givenHome = args.string('home');
  const profileFile = args.string('cpu-prof');
  const startBatch = args.number('start-batch', 50);
  const scratch = mkdtempSync(join(tmpdir(), 'colony-fanout-'));
  const home = givenHome ?? join(scratch, 'home');
  const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

  const fake = await startFakeServer({ distRoot, latencyMs, scenario: 'fanout' });
  let store: Store | null = null;
  try {
    store = await openStore({ home, quiet: true, databaseUrl: '', poolSize });
    const pm = postmasterPid(home);
    if (pm === null) throw new Error('cannot find the embedded Postgres postmaster pid');
    const repo = makeFixtureRepo(join(scratch, 'repo'));

    const spec: RunSpec = {
      runId: newRunId(),
      topology: 'solo', // one run with N agents; the CLI has no fanout topology yet
      repo: repo.dir,
      goal: `fanout benchmark: ${n} agents x ${CALLS_PER_AGENT} model calls at ${latencyMs} ms`,
      baseRef: 'HEAD',
      baseCommit: repo.commit,
      model: 'openai-chat:fake',
      baseUrl: fake.url,
      customModels: [],
      maxSteps: 20,
      profile: 'explore',
      stream: false,
      modelTimeoutMs: 120_000,
      maxRetries: 4,
      bashTimeoutS: 60,
    };
    await recordNewRun(store, spec);
    const resolved = resolveModel(spec.model, { baseUrl: fake.url });
    if (!resolved.ok) throw new Error(resolved.error);
    const trace = args.flag('trace') ? createTrace() : null;
    const wireProvider = createProvider(resolved.model, {
      apiKey: 'bench-not-a-secret',
      timeoutMs: spec.modelTimeoutMs,
      maxRetries: spec.maxRetries,
    });
    const provider = trace ? trace.provider(wireProvider) : wireProvider;
    if (trace) trace.watchLog(store.log);
    const tools = toolsForProfile(spec.profile, repo.dir);
    if (!tools.ok) throw new Error(tools.error);
    const toolNames = tools.tools.map((t) => t.spec.name);
    const scrubber = createScrubber(secretValuesFromEnv(process.env));
    const system = scrubber.scrub(
      buildSystemPrompt({ profile: spec.profile, repo: summariseRepo(repo.dir), toolNames }),
    );
    const budget = new Budget({});
    const { log } = store;
    const runStore = store.runs;

    // Colony's processes: this one, the postmaster and its backends (not the fake server).
    const postgresProcs = cachedTree(pm);
    const colonyProcs = (): ProcStat[] => {
      const self = readProcStat(process.pid);
      return [...(self ? [self] : []), ...postgresProcs()];
    };
    const rss = new RssSampler(colonyProcs);
    let figures: WorkFigures | null = null;

    const runAgentNamed = async (name: string): Promise<AgentOutcome> => {
      // Awaited only at the end: the log's single flusher commits it before (or with) this agent's
      // first model.response, so the model call does not wait for it.
      const started = log.append({
        runId: spec.runId,
        agent: name,
        kind: 'agent.started',
        data: {
          profile: spec.profile,
          model: resolved.model.id,
          task: spec.goal,
          system,
          tools: toolNames,
          maxSteps: spec.maxSteps,
        },
      });
      const outcome = await runAgent(
        {
          runId: spec.runId,
          name,
          profile: spec.profile,
          task: spec.goal,
          system,
          tools: tools.tools,
          provider,
          maxSteps: spec.maxSteps,
        },
        { log, scrubber, budget, history: [] },
      );
      await started;
      return outcome;
    };

    const phases: RunPhases<void> = {
      async prepare() {},
      async work() {
        const profiler = profileFile ? await startProfile(profileFile) : null;
        rss.start(sampleMs);
        const before = allProcStats();
        const fakeBefore = readProcStat(fake.pid)?.cpuMs ?? 0;
        const cpuBefore = process.cpuUsage();
        const eluBefore = perf.eventLoopUtilization();
        const t0 = performance.now();
        const running: Promise<AgentOutcome>[] = [];
        for (let i = 0; i < n; i++) {
          running.push(runAgentNamed(`a${i}`));
          // Yield to the event loop every few agents so that the first requests leave (and the
          // server starts on them) while later agents are still being started.
          if (startBatch > 0 && (i + 1) % startBatch === 0) await new Promise(setImmediate);
        }
        const outcomes = await Promise.all(running);
        const makespanMs = performance.now() - t0;
        await profiler?.stop();
        const cpu = process.cpuUsage(cpuBefore);
        const after = allProcStats();
        figures = {
          makespanMs,
          nodeCpuMs: (cpu.user + cpu.system) / 1000,
          pgCpuMs: treeCpuMs(pm, after) - treeCpuMs(pm, before),
          fakeCpuMs: (readProcStat(fake.pid)?.cpuMs ?? 0) - fakeBefore,
          eventLoopBusy: perf.eventLoopUtilization(eluBefore).utilization,
          outcomes,
        };
      },
      async finalize() {
        const failed = figures?.outcomes.filter((o) => o.status !== 'done').length ?? n;
        const status = failed === 0 ? 'succeeded' : 'failed';
        await log.append({
          runId: spec.runId,
          agent: null,
          kind: 'run.finished',
          data: { status, reason: `${n - failed} of ${n} agents answered`, resultBranch: null },
        });
        await runStore.setRunStatus(spec.runId, status);
      },
    };
    // --no-dbos (diagnosis only): the same phases without DBOS, to measure what DBOS costs.
    if (args.flag('no-dbos')) {
      await phases.prepare();
      await phases.work();
      await phases.finalize();
    } else {
      await executeDurably({
        runId: spec.runId,
        systemDatabaseUrl: store.superuserUrl ?? store.databaseUrl,
        phases,
      });
    }
    await log.flush();
    rss.stop();
    if (trace) process.stderr.write(`${trace.report()}\n`);
    const work = figures as WorkFigures | null;
    if (!work) throw new Error('the work phase did not run');

    const counted = await store.pool.query<{ events: string; calls: string }>(
      `SELECT count(*) AS events, count(*) FILTER (WHERE kind = 'model.response') AS calls
       FROM colony.events WHERE run_id = $1`,
      [spec.runId],
    );
    const events = Number(counted.rows[0]?.events ?? 0);
    const modelCalls = Number(counted.rows[0]?.calls ?? 0);
    const verified = await log.verify(spec.runId);
    const idealMs = CALLS_PER_AGENT * latencyMs;
    const r = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
    const colonyCpuMs = work.nodeCpuMs + work.pgCpuMs;
    const pids = [...rss.seen].map(
      ([pid, comm]) => `${pid}:${comm}:${Math.round((rss.peakByPid.get(pid) ?? 0) / MB)}MB`,
    );
    console.log(
      JSON.stringify({
        n,
        latencyMs,
        makespanMs: Math.round(work.makespanMs),
        idealMs,
        ratio: r(work.makespanMs / idealMs),
        cpuMsPerCall: r(colonyCpuMs / Math.max(1, modelCalls)),
        nodeCpuMsPerCall: r(work.nodeCpuMs / Math.max(1, modelCalls)),
        pgCpuMsPerCall: r(work.pgCpuMs / Math.max(1, modelCalls)),
        fakeCpuMsPerCall: r(work.fakeCpuMs / Math.max(1, modelCalls)),
        peakRssMB: r(rss.peakBytes / MB, 1),
        peakNodeRssMB: r((rss.peakByPid.get(process.pid) ?? 0) / MB, 1),
        eventLoopBusy: r(work.eventLoopBusy, 2),
        events,
        verified: verified.ok && verified.events === events,
        modelCalls,
        fakeRequests: await fake.requests(),
        agentsDone: work.outcomes.filter((o) => o.status === 'done').length,
        flushes: log.stats.flushes,
        note: `peakRssMB sums RSS over this node process and the embedded Postgres (postmaster ${pm} and its backends); pid:name:own peak: ${pids.join(' ')}; host ${hostname()}`,
      }),
    );
  } finally {
    await store?.close();
    await fake.stop();
    if (!args.flag('keep')) rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`bench fanout: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
});
