/**
 * Crash durability: `kill -9` of `colony run` / `colony resume` at seeded random moments, then
 * `colony resume` until a resume finishes. The run must end as an uninterrupted run does (same result
 * diff, succeeded, intact hash chain) without repeating completed model calls: the fake provider may
 * serve a request twice only when a kill landed while it was in flight. Read-only commands on an
 * interrupted run never call the model, and `colony resume` refuses a run whose process is alive.
 *
 * Replay a failure with DURABILITY_SEED=<seed printed in the failure>.
 */
import { mkdtempSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BashEffects,
  createDurabilityPolicy,
  durabilityRepoFiles,
  type EditAnchors,
} from '../fake-provider/scenarios-durability.js';
import { type FakeProvider, type FakeStats, startFakeProvider } from '../fake-provider/server.js';
import {
  type Colony,
  colony,
  type EventLine,
  ensureBuilt,
  git,
  killAfter,
  killWhen,
  makeRepo,
  parseEventLine,
  repeatedServes,
  resultDiff,
  seededRandom,
  sleep,
  startColony,
} from './harness.js';

const LATENCY_MS = 150;
const STREAM_FRAME_DELAY_MS = 25;
const GOAL =
  'Generate the data table, add average() and a money() helper, update the notes, keep a progress log.';
const VERIFY = 'node --check src/ledger.js';
/**
 * Kills to land in total (aimed and random), and the most random kills aimed at one run. A random
 * kill time is drawn from the whole baseline run, so one aimed at a resumed process (which replays
 * its log quickly) often comes after that process has finished and does not land. How many runs it
 * takes to land MIN_KILLS therefore depends on the machine's speed: runs are drawn until it is reached,
 * and MAX_RANDOM_RUNS only bounds bad luck (1.0–1.8 random kills landed per run here, the lower under load).
 */
const MIN_KILLS = 20;
const MAX_KILLS_PER_RUN = 4;
const MAX_RANDOM_RUNS = 40;
/**
 * Crash runs under way at once. One lane keeps each kill's timing about one run (two runs on two
 * cores skew where a random kill lands). Concurrent recovery is covered on its own by 'several runs
 * resumed at once' (fixed by the per-run DBOS application version: a recovered run stays in the
 * process that resumes it).
 */
const LANES = 1;
const SEED = Number(process.env.DURABILITY_SEED ?? 20_260_214);
/**
 * A file tool call (`write`, `edit`) in flight when the process is killed takes effect exactly once:
 * it logs its intent (the file's hash before and after) before it writes, and `colony resume`
 * completes it from the file when its change is on disk already (agent/in-flight.ts). So the scenario's
 * edits keep their anchor (an edit applied twice would show in the diff: the import lines doubled), a
 * re-run `write` says "Created" as the first run did, and a crash run's conversation must be the
 * uninterrupted one's. Set to false (with the product change reverted) and the edits go back to
 * replacing their anchor and a diverged conversation is accepted.
 *
 * `bash` stays at-least-once (docs/tools.md): a command killed mid-way dies with Colony and runs once
 * more (the appending test below), but one whose effect landed just before the kill, its result not
 * yet logged, runs again. So the random kills use idempotent bash commands (`overwrite`).
 */
const IN_FLIGHT_EXACTLY_ONCE = true;
const effects: BashEffects = 'overwrite';
const anchors: EditAnchors = IN_FLIGHT_EXACTLY_ONCE ? 'keep-anchor' : 'replace-anchor';

interface Baseline {
  stream: boolean;
  runId: string;
  diff: string;
  stats: FakeStats;
  durationMs: number;
}

const fakes: FakeProvider[] = [];

function startFake(effects: BashEffects): Promise<FakeProvider> {
  return startFakeProvider({
    policy: createDurabilityPolicy(effects, anchors),
    latencyMs: LATENCY_MS,
    streamFrameDelayMs: STREAM_FRAME_DELAY_MS,
    record: false,
  }).then((fake) => {
    fakes.push(fake);
    return fake;
  });
}

function runArgs(repo: string, fakeUrl: string, stream: boolean): string[] {
  const args = [
    'run',
    '--repo',
    repo,
    '--goal',
    GOAL,
    '--model',
    'openai-chat:fake',
    '--base-url',
    fakeUrl,
    '--verify',
    VERIFY,
    '--json',
  ];
  return stream ? [...args, '--stream'] : args;
}

/** The last event the process printed (what it was doing when it died). */
function lastActivity(c: Colony): string {
  for (let i = c.lines.length - 1; i >= 0; i--) {
    const e = parseEventLine(c.lines[i] ?? '');
    if (e) return `${e.kind}${e.step !== undefined ? ` step ${e.step}` : ''}${e.name ? ` ${e.name}` : ''}`;
  }
  return '(nothing printed yet)';
}

/** The run created for `repo` (each crash run has its own repository), if the killed process got that far. */
async function runForRepo(repo: string): Promise<string | null> {
  const listed = await colony(['runs', '--json', '--limit', '200']);
  expect(listed.code, listed.stderr).toBe(0);
  const runs = JSON.parse(listed.stdout) as Array<{ runId: string; repo: string }>;
  const real = realpathSync(repo);
  return runs.find((r) => r.repo === repo || r.repo === real)?.runId ?? null;
}

async function baselineRun(stream: boolean, effects: BashEffects): Promise<Baseline> {
  const fake = await startFake(effects);
  const repo = await makeRepo(durabilityRepoFiles());
  const started = performance.now();
  const c = startColony(runArgs(repo.dir, fake.url, stream));
  const { code } = await c.exited;
  const durationMs = performance.now() - started;
  const runId = await c.runId;
  expect(code, `baseline run failed: ${c.stderr()}`).toBe(0);
  expect(runId).toBeTruthy();
  const summary = JSON.parse(c.lines[c.lines.length - 1] ?? '{}') as { status?: string };
  expect(summary.status).toBe('succeeded');
  return {
    stream,
    runId: runId!,
    diff: await resultDiff(repo.dir, repo.base, runId!),
    stats: fake.stats(),
    durationMs,
  };
}

interface CrashOutcome {
  runId: string;
  kills: number;
  /** What each killed process was last seen doing. */
  killedDuring: string[];
  finalCode: number | null;
  finalSummary: { status?: string; reason?: string };
  diff: string;
  stats: FakeStats;
}

/** When to kill a process: a time after its start, or a delay after it prints a matching event. */
type Kill = { afterMs: number } | { on: (event: EventLine) => boolean; delayMs: number; label: string };

function describeKill(kill: Kill): string {
  return 'afterMs' in kill ? `${Math.round(kill.afterMs)}ms` : kill.label;
}

/** One run under fire: `run`, killed; then `resume`s, each maybe killed; the last resume runs to the end. */
async function crashRun(stream: boolean, effects: BashEffects, killPlan: Kill[]): Promise<CrashOutcome> {
  const fake = await startFake(effects);
  const repo = await makeRepo(durabilityRepoFiles());
  let runId: string | null = null;
  let kills = 0;
  const killedDuring: string[] = [];
  let last: Colony | null = null;
  let lastCode: number | null = null;
  for (let attempt = 0; ; attempt++) {
    const kill = killPlan[attempt];
    const c: Colony = runId
      ? startColony(['resume', runId, '--json'])
      : startColony(runArgs(repo.dir, fake.url, stream));
    last = c;
    if (kill === undefined) {
      lastCode = (await c.exited).code;
      runId ??= await c.runId;
      break;
    }
    const killed =
      'afterMs' in kill ? await killAfter(c, kill.afterMs) : await killWhen(c, kill.on, kill.delayMs);
    runId ??= (await c.runId) ?? (await runForRepo(repo.dir));
    if (!killed) {
      lastCode = (await c.exited).code;
      break;
    }
    // A kill before the run was even recorded tests nothing; it does not count.
    if (runId) {
      kills++;
      killedDuring.push(`${describeKill(kill)}: ${lastActivity(c)}`);
    }
  }
  expect(runId, 'the run was never created').toBeTruthy();
  const id = runId!;
  const summaryLine = last?.lines[last.lines.length - 1] ?? '{}';
  let finalSummary: { status?: string; reason?: string } = {};
  try {
    finalSummary = JSON.parse(summaryLine) as { status?: string; reason?: string };
  } catch {
    finalSummary = {
      status: `unparsable last line: ${summaryLine.slice(0, 200)} / stderr: ${last?.stderr()}`,
    };
  }
  const diff = await resultDiff(repo.dir, repo.base, id).catch(
    (err: Error) => `no result branch: ${err.message}`,
  );
  return { runId: id, kills, killedDuring, finalCode: lastCode, finalSummary, diff, stats: fake.stats() };
}

/** The summary line a finished `colony run`/`resume`/`demo --json` ends with. */
function summaryOf(c: Colony | null): { status?: string; reason?: string } {
  const line = c?.lines[c.lines.length - 1] ?? '{}';
  try {
    return JSON.parse(line) as { status?: string; reason?: string };
  } catch {
    return { status: `unparsable last line: ${line.slice(0, 200)} / stderr: ${c?.stderr()}` };
  }
}

let plain: Baseline;

beforeAll(async () => {
  await ensureBuilt();
  // Also the first DBOS launch of this file, alone: first-ever launches at once fail (see the report).
  plain = await baselineRun(false, effects);
}, 180_000);

afterAll(async () => {
  await Promise.all(fakes.map((fake) => fake.close()));
});

/** What differs between a crash run and the uninterrupted run of the same mode (empty: nothing). */
async function compare(out: CrashOutcome, baseline: Baseline, tag: string): Promise<string[]> {
  const problems: string[] = [];
  if (out.finalCode !== 0 || out.finalSummary.status !== 'succeeded') {
    const logs = await colony(['logs', out.runId]);
    const tail = logs.stdout.split('\n').slice(-12).join('\n');
    problems.push(
      `${tag}: final exit ${out.finalCode}, status ${out.finalSummary.status}: ${out.finalSummary.reason}\n${tail}`,
    );
  }
  if (out.diff !== baseline.diff) {
    problems.push(
      `${tag}: result diff differs from the uninterrupted run's\n${diffHint(baseline.diff, out.diff)}`,
    );
  }
  const repeated = repeatedServes(out.stats);
  if (repeated > out.kills) {
    problems.push(
      `${tag}: ${repeated} model requests served again, more than the ${out.kills} kill(s) can explain: ${JSON.stringify(out.stats.byKey)}`,
    );
  }
  // Every step was asked of the model (once, bar kills): as many distinct requests as the baseline.
  const distinct = Object.keys(out.stats.byKey).length;
  const baseDistinct = Object.keys(baseline.stats.byKey).length;
  if (distinct !== baseDistinct) {
    problems.push(`${tag}: ${distinct} distinct model requests, the uninterrupted run made ${baseDistinct}`);
  }
  const diverged = Object.keys(out.stats.byKey).filter((k) => !baseline.stats.byKey[k]).length;
  if (IN_FLIGHT_EXACTLY_ONCE && diverged > 0) {
    problems.push(
      `${tag}: the conversation diverged from the uninterrupted run's (${diverged} requests not in it)`,
    );
  }
  const verified = await colony(['verify', out.runId]);
  if (verified.code !== 0) {
    problems.push(`${tag}: colony verify exited ${verified.code}: ${verified.stdout} ${verified.stderr}`);
  }
  return problems;
}

function tagOf(label: string, out: CrashOutcome, stream: boolean, baseline: Baseline): string {
  const again = repeatedServes(out.stats);
  // Requests that differ from the uninterrupted run's (a re-run in-flight tool said something else).
  const diverged = Object.keys(out.stats.byKey).filter((k) => !baseline.stats.byKey[k]).length;
  return `${label} (${out.runId}, ${stream ? 'stream' : 'no stream'}, ${out.stats.requests} requests, ${again} served again, ${diverged} diverged, ${out.kills} kills: ${out.killedDuring.join('; ')})`;
}

const at = (kind: string, step: number, name: string | undefined, delayMs: number, what: string): Kill => ({
  on: (e) => e.kind === kind && e.step === step && (name === undefined || e.name === name),
  delayMs,
  label: what,
});

/**
 * Aimed kills for the moments random ones rarely hit. Steps count model responses: steps 2, 6 and 8
 * run `sleep 0.2–0.3 && <log a line>` (step 6 as the second call of a response, after an edit),
 * step 5 writes a file, step 10 is the final answer.
 */
const MID_BASH: Kill[] = [
  at('tool.started', 2, 'bash', 120, 'mid-bash step 2'),
  at('tool.started', 6, 'bash', 100, 'mid-bash step 6 (second call of a response)'),
  at('tool.started', 8, 'bash', 60, 'mid-bash step 8'),
];
const MID_STREAM_WRITE_FINALIZE: Kill[] = [
  at('tool.finished', 1, 'write', LATENCY_MS + 2 * STREAM_FRAME_DELAY_MS, 'mid-stream of request 2'),
  at('tool.started', 5, 'write', 0, 'mid-write step 5'),
  // Its intent is committed: the edit (whose new text holds its old) writes as the kill comes.
  at('tool.intent', 7, 'edit', 0, 'mid-edit step 7'),
  at('tool.finished', 9, 'bash', LATENCY_MS + 2 * STREAM_FRAME_DELAY_MS, 'mid-stream of the final answer'),
  at('agent.finished', 10, undefined, 0, 'finalize (commit, verify, fetch)'),
];

describe('kill -9 at random points, then colony resume', () => {
  it('finishes every run with the uninterrupted diff, serving each model request once except those in flight at a kill', async () => {
    const streamed = await baselineRun(true, effects);
    // The same policy, streamed or not, does the same work.
    expect(streamed.diff).toBe(plain.diff);
    for (const b of [plain, streamed]) {
      expect(Object.values(b.stats.byKey).every((n) => n === 1)).toBe(true);
      expect(b.stats.requests).toBe(Object.keys(b.stats.byKey).length);
    }
    const span = Math.max(plain.durationMs, streamed.durationMs);

    // Every plan is drawn up front from the seed, so a schedule replays whatever order lanes run in.
    const random = seededRandom(SEED);
    const plans: Array<{ stream: boolean; kills: Kill[] }> = [
      { stream: false, kills: MID_BASH },
      { stream: true, kills: MID_STREAM_WRITE_FINALIZE },
    ];
    for (let n = plans.length; n < 2 + MAX_RANDOM_RUNS; n++) {
      plans.push({
        stream: n % 2 === 1,
        kills: Array.from({ length: MAX_KILLS_PER_RUN }, () => ({ afterMs: random() * span })),
      });
    }
    let totalKills = 0;
    let next = 0;
    const problems: string[] = [];
    const report: string[] = [];
    const runIds: string[] = [];
    // Runs under fire in LANES lanes (see above).
    const lane = async (): Promise<void> => {
      while (totalKills < MIN_KILLS && next < plans.length) {
        const n = next++;
        const plan = plans[n]!;
        const out = await crashRun(plan.stream, effects, plan.kills);
        runIds.push(out.runId);
        totalKills += out.kills;
        const tag = tagOf(`seed ${SEED} crash run ${n}`, out, plan.stream, plan.stream ? streamed : plain);
        report.push(tag);
        problems.push(...(await compare(out, plan.stream ? streamed : plain, tag)));
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    process.stderr.write(
      `[durability] ${totalKills} kills over ${report.length} runs (baseline ${Math.round(span)} ms)\n${report.join('\n')}\n`,
    );
    expect(problems, problems.join('\n\n')).toEqual([]);
    expect(totalKills).toBeGreaterThanOrEqual(MIN_KILLS);

    const listed = await colony(['runs', '--json', '--limit', '500']);
    const runs = JSON.parse(listed.stdout) as Array<{ runId: string; status: string }>;
    const ours = runs.filter((r) => runIds.includes(r.runId));
    expect(ours.map((r) => r.runId).sort()).toEqual([...runIds].sort());
    expect(ours.filter((r) => r.status !== 'succeeded')).toEqual([]);
  }, 600_000);

  it('a non-idempotent bash command killed mid-command takes effect once (its orphan dies with Colony, then it is re-run)', async () => {
    const baseline = await baselineRun(false, 'append');
    const out = await crashRun(false, 'append', MID_BASH);
    expect(out.kills).toBe(MID_BASH.length);
    const problems = await compare(
      out,
      baseline,
      tagOf('appending bash, killed mid-command', out, false, baseline),
    );
    expect(problems, problems.join('\n\n')).toEqual([]);
  }, 300_000);

  it('several runs resumed at once each finish (recovery stays in the resuming process)', async () => {
    const fake = await startFake('overwrite');
    const runs = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const repo = await makeRepo(durabilityRepoFiles());
        const c = startColony(runArgs(repo.dir, fake.url, false));
        expect(await killWhen(c, (e) => e.kind === 'tool.finished' && e.step === 1, 0)).toBe(true);
        return (await c.runId)!;
      }),
    );
    // A resume whose workflow another process took may wait for it forever: give each 120 s.
    const resumed = await Promise.all(
      runs.map(async (runId) => {
        const c = startColony(['resume', runId, '--json']);
        const hung = await killAfter(c, 120_000);
        const { code } = await c.exited;
        const last = c.lines.at(-1)?.slice(0, 300);
        return {
          runId,
          code: hung ? 'hung (killed after 120 s)' : code,
          last,
          stderr: c.stderr().slice(0, 300),
        };
      }),
    );
    const failures = resumed.filter((r) => r.code !== 0);
    expect(failures).toEqual([]);
  }, 300_000);
});

/**
 * Team topologies under random kills: the bundled scripted demos, each started by `colony demo
 * <topology> --json` and finished by `colony resume` — peers (four peers claim six modules, edit,
 * test and land them through the merge queue, one merge rejected for a conflict and landed after a
 * sync) and orchestrated (a lead creates three subagents and runs two waves of parallel tasks). The
 * scripted model runs in Colony's process, so repeated model calls are read from the log instead of
 * a server's count: no agent logs a step twice, nor a tool result twice. A few runs of each, so the
 * sweep adds well under a minute (peers ~9 s a run here, orchestrated ~2 s).
 *
 * Kill points are drawn as positions in the run's log (the process is killed as it prints the event
 * at or past that seq), not as times: a time drawn from the baseline's span often fell in process
 * start-up, before the run existed, so how many kills landed depended on the machine's load.
 */
const TEAM_DEMOS = [
  { demo: 'peers', runs: 2 },
  { demo: 'orchestrated', runs: 3 },
] as const;
const TEAM_KILLS_PER_RUN = 2;
/** Kill points stay in the first three quarters of the log, so a kill does not race the run's end. */
const TEAM_KILL_SPAN = 0.75;

/**
 * A folder for one demo run: `colony demo --dir PARENT` copies its example repository into a fresh
 * folder under PARENT (a second one when a kill came before the run was recorded).
 */
function teamParent(): string {
  return mkdtempSync(join(tmpdir(), 'colony-durability-team-'));
}

/** The run made for a repository under `parent`, if the killed process got that far. */
async function teamRunIn(parent: string): Promise<string | null> {
  for (const made of readdirSync(parent)) {
    const runId = await runForRepo(join(parent, made));
    if (runId) return runId;
  }
  return null;
}

/** The run's result branch against its repository's first commit, or that there is none. */
async function teamResult(runId: string): Promise<string> {
  const listed = await colony(['runs', '--json', '--limit', '200']);
  const repo = (JSON.parse(listed.stdout) as Array<{ runId: string; repo: string }>).find(
    (r) => r.runId === runId,
  )?.repo;
  if (!repo) return '(run not listed)';
  const base = (await git(repo, 'rev-list', '--max-parents=0', 'main')).trim();
  return resultDiff(repo, base, runId).catch(() => '(no result branch)');
}

/** The run's merge outcomes and file edits in log order, to tell how a differing result came about. */
async function mergeHistory(runId: string): Promise<string> {
  const logs = await colony(['logs', runId, '--json']);
  const told: string[] = [];
  for (const line of logs.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as {
      seq: number;
      agent: string | null;
      kind: string;
      data: { mr?: number; reason?: string; name?: string; content?: string; recovered?: string };
    };
    if (e.kind === 'merge.landed' || e.kind === 'merge.rejected')
      told.push(
        `${e.seq} ${e.agent} MR ${e.data.mr} ${e.kind.slice(6)}${e.data.reason ? ` (${e.data.reason})` : ''}`,
      );
    else if (e.kind === 'run.resumed') told.push(`${e.seq} resumed`);
    else if (e.kind === 'tool.finished' && (e.data.name === 'edit' || e.data.name === 'write'))
      told.push(
        `${e.seq} ${e.agent} ${e.data.content?.split('\n')[0]}${e.data.recovered ? ` [${e.data.recovered}]` : ''}`,
      );
  }
  return told.join('; ');
}

/** Model steps or tool results an agent logged twice: a completed call made again. */
async function repeatedInLog(runId: string): Promise<string[]> {
  const logs = await colony(['logs', runId, '--json']);
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const line of logs.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as {
      agent: string | null;
      kind: string;
      data: { step?: number; callId?: string };
    };
    const key =
      e.kind === 'model.response'
        ? `${e.agent} step ${e.data.step}`
        : e.kind === 'tool.finished'
          ? `${e.agent} step ${e.data.step} result of ${e.data.callId}`
          : null;
    if (key === null) continue;
    if (seen.has(key)) repeated.push(key);
    seen.add(key);
  }
  return repeated;
}

describe('kill -9 at random points of team runs, then colony resume', () => {
  it('finishes peers and orchestrated runs as their uninterrupted runs do, repeating no completed call', async () => {
    const random = seededRandom(SEED + 1);
    const problems: string[] = [];
    const report: string[] = [];
    let totalKills = 0;
    for (const { demo, runs } of TEAM_DEMOS) {
      const first = startColony(['demo', demo, '--dir', teamParent(), '--json']);
      const { code } = await first.exited;
      const lastSeq = Math.max(0, ...first.lines.map((line) => parseEventLine(line)?.seq ?? 0));
      const baseId = await first.runId;
      expect(code, `baseline ${demo} run failed: ${first.stderr()}`).toBe(0);
      expect(summaryOf(first).status).toBe('succeeded');
      const baseline = await teamResult(baseId!);

      for (let n = 0; n < runs; n++) {
        const parent = teamParent();
        // Seq 1 is run.started: a kill at 2 or later finds the run recorded.
        const kills = Array.from({ length: TEAM_KILLS_PER_RUN }, () =>
          Math.max(2, Math.floor(random() * lastSeq * TEAM_KILL_SPAN)),
        ).sort((a, b) => a - b);
        let runId: string | null = null;
        let landed = 0;
        const killedDuring: string[] = [];
        let last: Colony | null = null;
        let lastCode: number | null = null;
        for (let attempt = 0; ; attempt++) {
          const atSeq = kills[attempt];
          const c: Colony = runId
            ? startColony(['resume', runId, '--json'])
            : startColony(['demo', demo, '--dir', parent, '--json']);
          last = c;
          if (atSeq === undefined || !(await killWhen(c, (e) => (e.seq ?? 0) >= atSeq, 0))) {
            lastCode = (await c.exited).code;
            runId ??= await c.runId;
            break;
          }
          runId ??= (await c.runId) ?? (await teamRunIn(parent));
          if (runId) {
            landed++;
            killedDuring.push(`at seq ${atSeq}: ${lastActivity(c)}`);
          }
        }
        expect(runId, `the ${demo} run was never created`).toBeTruthy();
        totalKills += landed;
        const tag = `seed ${SEED + 1} ${demo} crash run ${n} (${runId}, ${landed} kills: ${killedDuring.join('; ')})`;
        report.push(tag);
        const summary = summaryOf(last);
        if (lastCode !== 0 || summary.status !== 'succeeded')
          problems.push(`${tag}: final exit ${lastCode}, status ${summary.status}: ${summary.reason}`);
        const result = await teamResult(runId!);
        if (result !== baseline)
          problems.push(
            `${tag}: result differs from the uninterrupted run's\n${diffHint(baseline, result)}\n` +
              `  merges of the uninterrupted run: ${await mergeHistory(baseId!)}\n` +
              `  merges of this run: ${await mergeHistory(runId!)}`,
          );
        const repeated = await repeatedInLog(runId!);
        if (repeated.length > 0) problems.push(`${tag}: logged twice: ${repeated.join(', ')}`);
        const verified = await colony(['verify', runId!]);
        if (verified.code !== 0)
          problems.push(`${tag}: colony verify exited ${verified.code}: ${verified.stdout}`);
      }
    }
    process.stderr.write(`[durability] team runs: ${totalKills} kills\n${report.join('\n')}\n`);
    expect(problems, problems.join('\n\n')).toEqual([]);
    // Kills that land are what this tests. A kill point is at most 3/4 into the log, so one misses only
    // when the process gets through a quarter of the run before the test reads the line.
    expect(totalKills).toBeGreaterThanOrEqual(TEAM_DEMOS.reduce((sum, d) => sum + d.runs, 0));
  }, 300_000);
});

describe('an interrupted run', () => {
  it('cannot be resumed while its process lives, and read-only commands on it never call the model', async () => {
    const fake = await startFake('overwrite');
    const repo = await makeRepo(durabilityRepoFiles());
    const live = startColony(runArgs(repo.dir, fake.url, false));
    const midRun = (e: EventLine): boolean => e.kind === 'tool.started' && e.step === 2;
    const reached = await new Promise<boolean>((resolve) => {
      live.onLine((line) => {
        const e = parseEventLine(line);
        if (e && midRun(e)) resolve(true);
      });
      void live.exited.then(() => resolve(false));
    });
    expect(reached, `the run ended before step 2: ${live.stderr()}`).toBe(true);
    const runId = (await live.runId)!;

    const refused = await colony(['resume', runId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/still being executed by a live process/);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1); // one clear line, no stack trace

    expect(await killAfter(live, 0)).toBe(true);
    // A request that was on its way has arrived by now; from here on the count must not move.
    await sleep(LATENCY_MS + 200);
    const before = fake.stats().requests;

    for (const args of [
      ['runs'],
      ['runs', '--json'],
      ['show', runId],
      ['show', runId, '--json'],
      ['logs', runId],
      ['logs', runId, '--json'],
      ['verify', runId],
      ['verify', runId, '--json'],
    ]) {
      const result = await colony(args);
      expect(result.code, `colony ${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    // `logs --follow` ends by itself: nobody executes the run, so no more events would come.
    const following = startColony(['logs', runId, '--follow']);
    expect(await killAfter(following, 30_000)).toBe(false);
    const follow = { code: (await following.exited).code, stdout: following.lines.join('\n') };
    expect(follow.code).toBe(0);
    expect(follow.stdout).toContain(`colony resume ${runId} finishes it`);

    // Running in its log, but its process is gone: shown as interrupted.
    const shown = await colony(['show', runId, '--json']);
    expect((JSON.parse(shown.stdout) as { status: string }).status).toBe('interrupted');
    await sleep(LATENCY_MS + 200);
    expect(fake.stats().requests).toBe(before);
    const events = await colony(['logs', runId, '--json']);
    expect(events.stdout).not.toContain('"run.resumed"');

    // The refused resume and the read-only commands left the run resumable.
    const resumed = await colony(['resume', runId, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout.split('\n').at(-1) ?? '{}') as { status?: string };
    expect(summary.status).toBe('succeeded');
    expect(fake.stats().requests).toBeGreaterThan(before);
  }, 120_000);
});

/** The first differing lines of two diffs, for a readable failure. */
function diffHint(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      // The first difference, then both diffs from there (a blob's index line alone says too little).
      const from = (lines: string[]) =>
        lines
          .slice(i, i + 40)
          .map((l) => `    ${l.slice(0, 160)}`)
          .join('\n');
      return `  line ${i + 1}: expected ${JSON.stringify(a[i]?.slice(0, 160))}\n  line ${i + 1}: actual   ${JSON.stringify(b[i]?.slice(0, 160))}\n  expected from there:\n${from(a)}\n  actual from there:\n${from(b)}`;
    }
  }
  return '  (same lines)';
}
