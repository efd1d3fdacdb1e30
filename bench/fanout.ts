/**
 * Fanout benchmark: N agents in one run, all started at once, each making 5 `ls` tool-call steps and
 * a final answer against the fake OpenAI Chat server (its own process, fixed latency), through the
 * real agent loop, event log and DBOS (one workflow per run; the agents run inside its `work` step).
 * Prints one JSON line; keys and units are documented in bench/README.md.
 *
 * Usage: npm run bench -- fanout [--n 1000] [--latency-ms 1000] [--home DIR] [--keep]
 *        [--pool 10] [--sample-ms 200]
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance as perf } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { type AgentOutcome, runAgent } from '../src/agent/loop.js';
import { toolsForProfile } from '../src/agent/profiles.js';
import { summariseRepo } from '../src/agent/repo-summary.js';
import { buildSystemPrompt } from '../src/agent/system-prompt.js';
import { recordNewRun } from '../src/cli/new-run.js';
import { newRunId } from '../src/core/ids.js';
import { createScrubber, secretValuesFromEnv } from '../src/core/secrets.js';
import { createProvider, resolveModel } from '../src/model/index.js';
import { embeddedPaths, openStore, type Store } from '../src/store/index.js';
import { Budget } from '../src/swarm/budget.js';
import { executeDurably } from '../src/swarm/durable.js';
import type { RunSpec } from '../src/swarm/run-spec.js';
import { parseBenchArgs } from './lib/args.js';
import { startFakeServer } from './lib/fake-server.js';
import { makeFixtureRepo } from './lib/fixture-repo.js';
import { allProcStats, cachedTree, type ProcStat, RssSampler, readProcStat, treeCpuMs } from './lib/proc.js';

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
    const provider = createProvider(resolved.model, {
      apiKey: 'bench-not-a-secret',
      timeoutMs: spec.modelTimeoutMs,
      maxRetries: spec.maxRetries,
    });
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
      await log.append({
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
      return runAgent(
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
    };

    await executeDurably({
      runId: spec.runId,
      systemDatabaseUrl: store.superuserUrl ?? store.databaseUrl,
      phases: {
        async prepare() {},
        async work() {
          rss.start(sampleMs);
          const before = allProcStats();
          const fakeBefore = readProcStat(fake.pid)?.cpuMs ?? 0;
          const cpuBefore = process.cpuUsage();
          const eluBefore = perf.eventLoopUtilization();
          const t0 = performance.now();
          const outcomes = await Promise.all(Array.from({ length: n }, (_, i) => runAgentNamed(`a${i}`)));
          const makespanMs = performance.now() - t0;
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
      },
    });
    await log.flush();
    rss.stop();
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
    const pids = [...rss.seen].map(([pid, comm]) => `${pid}:${comm}`);
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
        eventLoopBusy: r(work.eventLoopBusy, 2),
        events,
        verified: verified.ok && verified.events === events,
        modelCalls,
        fakeRequests: await fake.requests(),
        agentsDone: work.outcomes.filter((o) => o.status === 'done').length,
        flushes: log.stats.flushes,
        note: `RSS summed over this node process and the embedded Postgres (postmaster ${pm} and backends): ${pids.join(' ')}; host ${hostname()}`,
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
