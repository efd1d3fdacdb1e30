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
 * Usage: npm run bench -- orchestrated [--n 1000] [--latency-ms 1000] [--concurrency 64] [--task-steps 2]
 *        [--lead-turns 1] [--pool 10] [--sample-ms 200] [--home DIR] [--keep] [--cpu-prof FILE] [--trace]
 * Prints one JSON line; keys are documented in bench/README.md. `--trace` prints, on stderr, how long
 * each event kind's append waited for its commit (see bench/lib/trace.ts).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance as perf } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { recordNewRun } from '../src/cli/new-run.js';
import { newRunId } from '../src/core/ids.js';
import { createProvider } from '../src/model/index.js';
import type { ModelRecord, Provider } from '../src/model/types.js';
import type { RunSpec } from '../src/run/run-spec.js';
import { embeddedPaths, openStore, type Store } from '../src/store/index.js';
import { executeRun } from '../src/topology/execute-run.js';
import { computeMetrics } from '../src/view/metrics.js';
import { parseBenchArgs } from './lib/args.js';
import { makeFixtureRepo } from './lib/fixture-repo.js';
import { cachedTree, type ProcStat, RssSampler, readProcStat } from './lib/proc.js';
import { startProfile } from './lib/profile.js';
import { createTrace } from './lib/trace.js';

const MB = 1024 * 1024;

function postmasterPid(home: string): number | null {
  try {
    const pid = Number(readFileSync(join(embeddedPaths(home).data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * The fake provider in its own process, answering with the orchestrated policy (stateless: the plan is
 * in the goal), so its CPU stays off this event loop. Inline module: no scenario registry edit needed.
 */
function startOrchestratedServer(
  distRoot: string,
  latencyMs: number,
): Promise<{ url: string; stop(): void }> {
  const server = pathToFileURL(join(distRoot, 'test', 'fake-provider', 'server.js')).href;
  const policy = pathToFileURL(join(distRoot, 'src', 'demo', 'orchestrated-policy.js')).href;
  const code = `
    const { startFakeProvider } = await import(${JSON.stringify(server)});
    const { orchestratedPolicy } = await import(${JSON.stringify(policy)});
    const fake = await startFakeProvider({ policy: orchestratedPolicy(), latencyMs: ${latencyMs}, record: false });
    process.stdout.write(JSON.stringify({ url: fake.url }) + '\\n');
    process.on('SIGTERM', () => fake.close().then(() => process.exit(0)));`;
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      const { url } = JSON.parse(buffered.slice(0, newline)) as { url: string };
      resolve({ url, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`fake server exited early (code ${code})`)));
    child.once('error', reject);
  });
}

/** Records when each agent's model calls leave and come back (client side), by system prompt. */
interface CallSpan {
  agent: string;
  start: number;
  end: number;
}

function observed(inner: Provider, spans: CallSpan[]): Provider {
  return {
    model: inner.model,
    async call(request, options) {
      const agent = /You are subagent "([^"]+)"/.exec(request.system)?.[1] ?? 'lead';
      const start = performance.now();
      const result = await inner.call(request, options);
      spans.push({ agent, start, end: performance.now() });
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
  const concurrency = args.number('concurrency', 64);
  const taskSteps = args.number('task-steps', 2);
  const leadTurns = Math.max(1, Math.min(n, args.number('lead-turns', 1)));
  const poolSize = args.number('pool', 10);
  const sampleMs = args.number('sample-ms', 200);
  const profileFile = args.string('cpu-prof');
  const scratch = mkdtempSync(join(tmpdir(), 'colony-orch-bench-'));
  const home = args.string('home') ?? join(scratch, 'home');
  const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

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

  const fake = await startOrchestratedServer(distRoot, latencyMs);
  let store: Store | null = null;
  try {
    store = await openStore({ home, quiet: true, databaseUrl: '', poolSize });
    const pm = postmasterPid(home);
    if (pm === null) throw new Error('cannot find the embedded Postgres postmaster pid');
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
    };
    await recordNewRun(store, spec);
    const spans: CallSpan[] = [];
    const trace = args.flag('trace') ? createTrace() : null;
    if (trace) trace.watchLog(store.log);
    const provider = observed(
      createProvider(model, { apiKey: 'bench-not-a-secret', timeoutMs: 120_000, maxRetries: 4 }),
      spans,
    );

    // New backends are found every 5 s (a /proc scan costs ~1 ms per process, on this event loop).
    const postgresProcs = cachedTree(pm, 5000);
    const rss = new RssSampler((): ProcStat[] => {
      const self = readProcStat(process.pid);
      return [...(self ? [self] : []), ...postgresProcs()];
    });
    const profiler = profileFile ? await startProfile(profileFile) : null;
    rss.start(sampleMs);
    const cpuBefore = process.cpuUsage();
    const eluBefore = perf.eventLoopUtilization();
    const t0 = performance.now();
    const result = await executeRun({
      store,
      spec,
      provider,
      env: { ...process.env, OPENAI_API_KEY: 'bench-not-a-secret' },
      signal: new AbortController().signal,
      resumed: false,
    });
    const runMs = performance.now() - t0;
    await profiler?.stop();
    const cpu = process.cpuUsage(cpuBefore);
    const elu = perf.eventLoopUtilization(eluBefore).utilization;
    rss.stop();
    if (!result.ok) throw new Error(result.error);

    // Makespan: the lead's first request leaving → its final answer back (prepare/finalize apart).
    const lead = spans.filter((s) => s.agent === 'lead').sort((a, b) => a.start - b.start);
    const firstLead = lead[0];
    const lastLead = lead.at(-1);
    if (!firstLead || !lastLead) throw new Error('the lead made no model call');
    const makespanMs = lastLead.end - firstLead.start;

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
    const counted = await store.pool.query<{ events: string }>(
      'SELECT count(*) AS events FROM colony.events WHERE run_id = $1',
      [spec.runId],
    );
    const events = Number(counted.rows[0]?.events ?? 0);
    const metrics = computeMetrics(await store.log.read(spec.runId));
    const r = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
    console.log(
      JSON.stringify({
        n,
        latencyMs,
        concurrency,
        taskSteps,
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
        nodeCpuMs: Math.round((cpu.user + cpu.system) / 1000),
        eventLoopBusy: r(elu, 2),
        events,
        status: result.summary.status,
        tasksDone: metrics.tasksDone,
        criticalSteps: metrics.criticalSteps,
        totalSteps: metrics.totalSteps,
        parallelism: r(metrics.parallelism, 2),
        modelCalls: spans.length,
        note: `peakRssMB sums this node process and the embedded Postgres (postmaster ${pm} and its backends); the fake server is its own process; host ${hostname()}`,
      }),
    );
  } finally {
    await store?.close();
    fake.stop();
    if (!args.flag('keep')) rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`bench orchestrated: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
});
