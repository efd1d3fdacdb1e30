/**
 * The soak (issue 30): for `minutes`, fleet runs one after another, alternating peers
 * (`colony run --workers --topology peers --agents 4..8`) and orchestrated (`--topology orchestrated
 * --workers`), on two `colony worker` processes sharing one Debian Postgres, against one scripted fake
 * model server (soak-policy.ts). During each run, faults at seeded-random moments (after a random
 * number of the run's tool calls finished, plus a random delay):
 *
 * - `worker`: kill -9 of one worker's process group; the same worker (name and home) starts again
 *   1–3 s later. The other worker declares it gone and takes its sessions over.
 * - `owner`: kill -9 of the run's owner (`colony run` or the `colony resume` that replaced it), then
 *   `colony resume RUN`.
 * - `postgres`: an immediate shutdown of Postgres (every backend dies at once), 1 s down, the same
 *   port again. An owner that paused on it (exit 1, no summary) is resumed with `colony resume RUN`.
 *
 * The soak itself is the supervisor: every Colony process runs with COLONY_AUTO_RESUME=off (the
 * workers are supervisors too, docs/recovery.md), and the soak starts `colony resume RUN` whenever the
 * run's owner ended without a final status — so each resume is counted and its output kept.
 *
 * After each run: its events from the database, `colony verify RUN`, and the checks: no model call
 * answered twice for one step of one agent (two model.response with the same agent and step), every
 * merge.landed commit an ancestor of the result branch colony/<run-id>, the chain verifying.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { newRunId } from '../../src/core/ids.js';
import { startFakeProvider } from '../../test/fake-provider/server.js';
import type { BenchCleanup } from './cleanup.js';
import { type DebianPostgres, startBenchPostgres } from './debian-postgres.js';
import { commitFixture } from './fixture-repo.js';
import { SOAK_FILES, SOAK_WRITERS, soakPolicy, soakWriterName } from './soak-policy.js';

export type FaultKind = 'worker' | 'owner' | 'postgres';
export const FAULT_KINDS: readonly FaultKind[] = ['worker', 'owner', 'postgres'];

export interface SoakOptions {
  minutes: number;
  seed: number;
  /** Scratch folder (repositories, homes). */
  dir: string;
  cleanup: BenchCleanup;
  /** Progress lines. */
  say?: (line: string) => void;
  /** The fake model's latency per call (default 100 ms). */
  latencyMs?: number;
  /** The kinds of fault to inject (default all three). */
  kinds?: readonly FaultKind[];
  /** A run not finished after this long (resumes included) counts as not finished (default 10 min). */
  runTimeoutMs?: number;
}

export interface SoakRun {
  runId: string;
  topology: 'peers' | 'orchestrated';
  agents: number;
  status: string;
  faults: FaultKind[];
  resumes: number;
  takeovers: number;
  resumed: number;
  recovered: number;
  repeatedCalls: string[];
  lostCommits: string[];
  /** Files an agent was scripted to write that are not on the result branch. */
  missingFiles: string[];
  landed: number;
  verified: boolean;
  seqGaps: boolean;
  ms: number;
}

export interface SoakReport {
  minutes: number;
  seed: number;
  runsStarted: number;
  runsSucceeded: number;
  runsOther: number;
  faults: Record<FaultKind, number>;
  takeovers: number;
  resumes: number;
  runResumed: number;
  runRecovered: number;
  repeatedCalls: number;
  lostCommits: number;
  /** Runs whose result branch lacks a file an agent was scripted to write (work lost, run ended). */
  incompleteRuns: number;
  mergesLanded: number;
  chainsVerified: number;
  seqGaps: number;
  /** A restarted worker that exited before joining (the database starting up) and was started again. */
  workerStartFailures: number;
  /** A worker process that ended on its own after joining (must be 0). */
  workerCrashes: number;
  runs: SoakRun[];
  /** Every check held: each run succeeded, none repeated a call or lost a commit, every chain verified. */
  ok: boolean;
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('soak: no package.json above bench/lib');
    dir = up;
  }
  return dir;
}

const COLONY_BIN = join(findRoot(), 'bin', 'colony.js');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** No model keys (the fake model needs none), no supervisor but the soak. */
const BASE_ENV = {
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
  OPENAI_BASE_URL: '',
  COLONY_AUTO_RESUME: 'off',
  // A run that hangs is reported with Node's diagnostic report of each worker and its owner (their
  // sockets, timers and stacks): SIGUSR2 writes one into REPORTS_DIR (see reportHang).
  NODE_OPTIONS:
    `${process.env.NODE_OPTIONS ?? ''} --report-on-signal --report-signal=SIGUSR2 --report-directory=${join(tmpdir(), 'soak-reports')}`.trim(),
};
const REPORTS_DIR = join(tmpdir(), 'soak-reports');

/** Asks each process for Node's diagnostic report (written to REPORTS_DIR) and says where they are. */
async function reportHang(procs: { name: string; proc: Proc }[], say: (line: string) => void): Promise<void> {
  mkdirSync(REPORTS_DIR, { recursive: true });
  for (const { name, proc } of procs) {
    if (!proc.child.pid || proc.child.exitCode !== null) continue;
    try {
      process.kill(proc.child.pid, 'SIGUSR2');
      say(`    ${name} (pid ${proc.child.pid}): diagnostic report requested into ${REPORTS_DIR}`);
    } catch {
      // already gone
    }
  }
  await sleep(2000);
}

interface Proc {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  closed: Promise<number | null>;
}

/** A Colony process in its own process group (a kill -9 takes its launchers and gits with it). */
function startColony(args: string[], env: NodeJS.ProcessEnv, cleanup: BenchCleanup): Proc {
  const child = spawn(process.execPath, [COLONY_BIN, ...args], {
    env: { ...process.env, ...BASE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-200_000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString('utf8')).slice(-20_000);
  });
  const forget = child.pid ? cleanup.guardProcess(child.pid, { group: true }) : () => {};
  const closed = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      forget();
      resolve(code);
    }),
  );
  return { child, out: () => out, err: () => err, closed };
}

/** kill -9 of the process's group (then waits for it to close). */
async function killGroup(proc: Proc): Promise<void> {
  const pid = proc.child.pid;
  if (pid && proc.child.exitCode === null && proc.child.signalCode === null) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      proc.child.kill('SIGKILL');
    }
  }
  await proc.closed;
  if (pid)
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // the group is empty
    }
}

function lastJson(stdout: string): Record<string, unknown> | null {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (!line.startsWith('{')) return null;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}

interface Event {
  seq: number;
  agent: string | null;
  kind: string;
  data: Record<string, unknown>;
}

/** The run's events, or null while the database is away. */
async function runEvents(url: string, runId: string): Promise<Event[] | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const res = await client.query<Event>(
      'SELECT seq, agent, kind, data FROM colony.events WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
    return res.rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

class Worker {
  proc: Proc;
  /** Times this worker's process ended on its own after it had joined (a crash: must be 0). */
  crashes = 0;
  /** Set while the soak itself kills it (a fault, the end): such an exit is no crash. */
  private killing = false;
  constructor(
    readonly name: string,
    readonly home: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly cleanup: BenchCleanup,
    private readonly say: (line: string) => void,
  ) {
    this.proc = this.spawn();
  }
  private spawn(): Proc {
    mkdirSync(this.home, { recursive: true });
    const proc = startColony(
      ['worker', '--name', this.name, '--slots', '4'],
      { ...this.env, COLONY_HOME: this.home },
      this.cleanup,
    );
    // A worker that joined and then exited by itself crashed: say so with its last words, and start
    // it again as a process supervisor would (its sessions are taken over meanwhile).
    void proc.closed.then((code) => {
      if (this.killing || proc !== this.proc || !proc.err().includes(`worker ${this.name}:`)) return;
      this.crashes += 1;
      const kept = join(tmpdir(), `soak-${this.name}-crash-${this.crashes}.log`);
      writeFileSync(kept, proc.err());
      this.say(`  WORKER ${this.name} CRASHED (exit ${code}); its stderr: ${kept}`);
      this.proc = this.spawn();
    });
    return proc;
  }
  async joined(): Promise<void> {
    const started = Date.now();
    while (!this.proc.err().includes(`worker ${this.name}:`)) {
      if (this.proc.child.exitCode !== null || this.proc.child.signalCode !== null)
        throw new Error(`worker ${this.name} exited: ${this.proc.err().slice(-2000)}`);
      if (Date.now() - started > 120_000) throw new Error(`worker ${this.name} did not join`);
      await sleep(100);
    }
  }
  async kill(): Promise<void> {
    this.killing = true;
    await killGroup(this.proc);
  }
  restart(): void {
    this.killing = false;
    this.proc = this.spawn();
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const say = options.say ?? (() => {});
  const random = seededRandom(options.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const runTimeoutMs = options.runTimeoutMs ?? 600_000;
  mkdirSync(options.dir, { recursive: true });

  const db: DebianPostgres = await startBenchPostgres({ maxConnections: 400 });
  options.cleanup.defer('soak postgres', () => db.stop());
  await db.sql('CREATE DATABASE soak');
  const url = db.urlFor('soak');
  const fake = await startFakeProvider({
    policy: soakPolicy(),
    latencyMs: options.latencyMs ?? 100,
    record: false,
  });
  options.cleanup.defer('soak model server', () => fake.close());
  const env = { COLONY_DATABASE_URL: url };
  const workers = ['w1', 'w2'].map(
    (name) => new Worker(name, join(options.dir, name), env, options.cleanup, say),
  );
  options.cleanup.defer('soak workers', async () => {
    await Promise.all(workers.map((w) => w.kill()));
  });
  await Promise.all(workers.map((w) => w.joined()));
  say(`Postgres, the model server and workers ${workers.map((w) => w.name).join(', ')} ready`);

  const ownerHome = join(options.dir, 'owner');
  mkdirSync(ownerHome, { recursive: true });
  const ownerEnv = { ...env, COLONY_HOME: ownerHome };
  const colonyOnce = async (args: string[]): Promise<{ code: number | null; out: string; err: string }> => {
    const proc = startColony(args, ownerEnv, options.cleanup);
    const code = await proc.closed;
    return { code, out: proc.out(), err: proc.err() };
  };

  // Faults come from a shuffled bag of the three kinds, so every three runs see each kind once.
  let bag: FaultKind[] = [];
  const nextFault = (): FaultKind => {
    if (bag.length === 0) {
      bag = [...(options.kinds ?? FAULT_KINDS)];
      for (let i = bag.length - 1; i > 0; i--) {
        const j = int(0, i);
        [bag[i], bag[j]] = [bag[j] as FaultKind, bag[i] as FaultKind];
      }
    }
    return bag.pop() as FaultKind;
  };

  const runs: SoakRun[] = [];
  const faults: Record<FaultKind, number> = { worker: 0, owner: 0, postgres: 0 };
  const deadline = Date.now() + options.minutes * 60_000;
  let index = 0;
  /** Workers that exited as they started (restarted again), a supervisor's restarts. */
  let workerRestarts = 0;
  while (Date.now() < deadline) {
    const topology = index % 2 === 0 ? 'peers' : 'orchestrated';
    index += 1;
    const agents = topology === 'peers' ? int(4, 8) : 5;
    // One or two faults, each after a random number of the run's tool calls (and a random delay).
    const plan = Array.from({ length: random() < 0.5 ? 1 : 2 }, () => ({
      kind: nextFault(),
      afterTools: int(1, topology === 'peers' ? agents * 2 : 6),
      delayMs: int(0, 1500),
    }));
    plan.sort((a, b) => a.afterTools - b.afterTools);
    const runId = newRunId();
    const repo = commitFixture(
      join(options.dir, runId),
      { 'README.md': '# soak\n', 'work/.keep': '' },
      'soak fixture',
    );
    const runArgs = [
      'run',
      '--run-id',
      runId,
      '--workers',
      '--topology',
      topology,
      ...(topology === 'peers'
        ? [
            '--agents',
            String(agents),
            '--verify',
            `test "$(ls work/*/*.txt | wc -l)" -ge ${agents * SOAK_FILES}`,
            '--merge-verify',
            'true',
          ]
        : ['--verify', 'ls work/*/1.txt']),
      '--repo',
      repo.dir,
      '--goal',
      'each agent adds its files under work/',
      '--sandbox',
      'off',
      '--model',
      'openai-chat:fake-model',
      '--base-url',
      fake.url,
      '--json',
    ];
    say(
      `run ${index} ${runId}: ${topology}${topology === 'peers' ? `, ${agents} agents` : ''}; faults ${plan
        .map((f) => `${f.kind} after ${f.afterTools} tool calls`)
        .join(', ')}`,
    );
    const started = Date.now();
    let owner = startColony(runArgs, ownerEnv, options.cleanup);
    const injected: FaultKind[] = [];
    let resumes = 0;
    let status = '';
    const restarts: Promise<void>[] = [];
    let ownerDone = false;
    let ownerClosed = owner.closed.then(() => {
      ownerDone = true;
    });
    while (!status) {
      if (Date.now() - started > runTimeoutMs) {
        await reportHang(
          [{ name: 'owner', proc: owner }, ...workers.map((w) => ({ name: w.name, proc: w.proc }))],
          say,
        );
        await killGroup(owner);
        status = 'timed out';
        break;
      }
      const fault = plan[0];
      if (fault && !ownerDone) {
        const events = await runEvents(url, runId);
        const tools = events?.filter((e) => e.kind === 'tool.finished').length ?? 0;
        if (tools >= fault.afterTools) {
          plan.shift();
          await sleep(fault.delayMs);
          if (!ownerDone) {
            injected.push(fault.kind);
            faults[fault.kind] += 1;
            say(`  fault: ${fault.kind} (${tools} tool calls in)`);
            if (fault.kind === 'worker') {
              const victim = workers[int(0, workers.length - 1)] as Worker;
              await victim.kill();
              const downMs = int(1000, 3000);
              const restarted = sleep(downMs).then(async () => {
                // As a process supervisor would: `colony worker` exits at once when the database is
                // starting up (a Postgres crash a moment before), so it is started again until it joins.
                for (let attempt = 1; ; attempt++) {
                  victim.restart();
                  try {
                    await victim.joined();
                    return;
                  } catch (err) {
                    if (attempt >= 30) throw err;
                    workerRestarts += 1;
                    say(`  worker ${victim.name} exited on start: ${String(err).slice(-300)}`);
                    await sleep(1000);
                  }
                }
              });
              // Awaited before the next resume and at the run's end (a worker that never joins ends the soak).
              restarted.catch(() => {});
              restarts.push(restarted);
            } else if (fault.kind === 'owner') {
              await killGroup(owner);
            } else {
              await db.crashAndRestart(1000);
            }
          }
          continue;
        }
        await Promise.race([ownerClosed, sleep(250)]);
        continue;
      }
      // The run's time limit holds here too: an owner that never ends (an agent stuck) must not stall the soak.
      const left = runTimeoutMs - (Date.now() - started);
      if (!(await Promise.race([ownerClosed.then(() => true), sleep(Math.max(0, left)).then(() => false)]))) {
        await reportHang(
          [{ name: 'owner', proc: owner }, ...workers.map((w) => ({ name: w.name, proc: w.proc }))],
          say,
        );
        await killGroup(owner);
        status = 'timed out';
        break;
      }
      const summary = lastJson(owner.out());
      if (summary && typeof summary.status === 'string') {
        status = summary.status;
        break;
      }
      // Killed, or paused when the database went away: resume it, as a supervisor would.
      if (resumes >= 6) {
        status = 'not resumed';
        say(`  owner ended without a status 6 times: ${owner.err().slice(-1500)}`);
        break;
      }
      resumes += 1;
      await Promise.all(restarts);
      say(`  colony resume ${runId} (${resumes})`);
      owner = startColony(['resume', runId, '--json'], ownerEnv, options.cleanup);
      ownerDone = false;
      ownerClosed = owner.closed.then(() => {
        ownerDone = true;
      });
    }
    await Promise.all(restarts);
    if (status !== 'succeeded') say(`  owner: ${owner.out().slice(-1500)}\n${owner.err().slice(-1500)}`);

    const events = (await runEvents(url, runId)) ?? [];
    const steps = new Map<string, number>();
    for (const e of events.filter((e) => e.kind === 'model.response')) {
      const key = `${e.agent}#${String(e.data.step)}`;
      steps.set(key, (steps.get(key) ?? 0) + 1);
    }
    const repeatedCalls = [...steps].filter(([, n]) => n > 1).map(([key]) => key);
    const branch = `colony/${runId}`;
    const landed = events.filter((e) => e.kind === 'merge.landed').map((e) => String(e.data.commit));
    const lostCommits = landed.filter((commit) => {
      try {
        execFileSync('git', ['merge-base', '--is-ancestor', commit, branch], {
          cwd: repo.dir,
          stdio: 'ignore',
        });
        return false;
      } catch {
        return true;
      }
    });
    // Every agent's files on the result branch: a run can succeed with an agent's work missing.
    const expected = (
      topology === 'peers'
        ? Array.from({ length: agents }, (_, i) =>
            Array.from({ length: SOAK_FILES }, (_, k) => `work/peer-${i + 1}/${k + 1}.txt`),
          ).flat()
        : [
            ...Array.from({ length: SOAK_WRITERS }, (_, i) => `work/${soakWriterName(i)}/1.txt`),
            `work/${soakWriterName(0)}/2.txt`,
          ]
    ).concat('work/.keep');
    let onBranch: string[] = [];
    try {
      onBranch = execFileSync('git', ['ls-tree', '-r', '--name-only', branch, 'work'], {
        cwd: repo.dir,
        encoding: 'utf8',
      })
        .split('\n')
        .filter(Boolean);
    } catch {
      // no result branch
    }
    const missingFiles = expected.filter((f) => !onBranch.includes(f));
    if (status !== 'succeeded' || missingFiles.length > 0) {
      // What the fleet and the integration did, to say what went missing.
      const interesting = /^(merge\.|worker\.|warning|run\.|agent\.(placed|finished)|session\.)/;
      const kept = join(tmpdir(), `soak-${runId}.events.jsonl`);
      writeFileSync(kept, events.map((e) => JSON.stringify(e)).join('\n'));
      say(`    every event of the run: ${kept}`);
      const sessions = await db
        .sql(
          `SELECT workflow_uuid, status, name, left(error, 300) AS error, left(output, 200) AS output
             FROM dbos.workflow_status WHERE workflow_uuid LIKE '${runId}%' ORDER BY created_at`,
          'soak',
        )
        .catch((err: unknown) => ({ rows: [{ error: String(err) }] }));
      for (const row of sessions.rows) say(`    dbos: ${JSON.stringify(row)}`);
      for (const w of workers) say(`    ${w.name}: ${w.proc.err().slice(-3000)}`);
      for (const e of events)
        if (interesting.test(e.kind) || e.data.name === 'merge_request' || e.data.name === 'release')
          say(`    ${e.seq} ${e.agent ?? '-'} ${e.kind} ${JSON.stringify(e.data).slice(0, 300)}`);
    }
    const verify = await colonyOnce(['verify', runId]);
    const run: SoakRun = {
      runId,
      topology,
      agents,
      status,
      faults: injected,
      resumes,
      takeovers: events.filter((e) => e.kind === 'agent.placed' && e.data.takeover === true).length,
      resumed: events.filter((e) => e.kind === 'run.resumed').length,
      recovered: events.filter((e) => e.kind === 'run.recovered').length,
      repeatedCalls,
      lostCommits,
      missingFiles,
      landed: landed.length,
      verified: verify.code === 0,
      seqGaps: events.some((e, i) => e.seq !== i + 1),
      ms: Date.now() - started,
    };
    if (!run.verified) say(`  colony verify: ${verify.out.slice(-800)}${verify.err.slice(-800)}`);
    runs.push(run);
    say(
      `  ${status} in ${(run.ms / 1000).toFixed(1)} s: ${run.takeovers} taken over, ${run.resumes} resume(s), ${landed.length} merges landed, ${repeatedCalls.length} repeated, ${lostCommits.length} lost, ${missingFiles.length} files missing, verify ${run.verified ? 'ok' : 'FAILED'}`,
    );
  }

  const sum = (f: (r: SoakRun) => number) => runs.reduce((n, r) => n + f(r), 0);
  const report: SoakReport = {
    minutes: options.minutes,
    seed: options.seed,
    runsStarted: runs.length,
    runsSucceeded: runs.filter((r) => r.status === 'succeeded').length,
    runsOther: runs.filter((r) => r.status !== 'succeeded').length,
    faults,
    takeovers: sum((r) => r.takeovers),
    resumes: sum((r) => r.resumes),
    runResumed: sum((r) => r.resumed),
    runRecovered: sum((r) => r.recovered),
    repeatedCalls: sum((r) => r.repeatedCalls.length),
    lostCommits: sum((r) => r.lostCommits.length),
    incompleteRuns: runs.filter((r) => r.missingFiles.length > 0).length,
    mergesLanded: sum((r) => r.landed),
    chainsVerified: runs.filter((r) => r.verified).length,
    seqGaps: runs.filter((r) => r.seqGaps).length,
    workerStartFailures: workerRestarts,
    workerCrashes: workers.reduce((n, w) => n + w.crashes, 0),
    runs,
    ok: false,
  };
  report.ok =
    report.runsStarted > 0 &&
    report.runsOther === 0 &&
    report.repeatedCalls === 0 &&
    report.lostCommits === 0 &&
    report.incompleteRuns === 0 &&
    report.seqGaps === 0 &&
    report.workerCrashes === 0 &&
    report.chainsVerified === report.runsStarted;
  return report;
}
