/**
 * Crash durability: `kill -9` of `colony run` / `colony resume` at seeded random moments, then
 * `colony resume` until a resume finishes. The run must end as an uninterrupted run does (same result
 * diff, succeeded, intact hash chain) without repeating completed model calls: the fake provider may
 * serve a request twice only when a kill landed while it was in flight.
 *
 * Replay a failure with DURABILITY_SEED=<seed printed in the failure>.
 */
import { realpathSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durabilityPolicy, durabilityRepoFiles } from '../fake-provider/scenarios-durability.js';
import { type FakeProvider, type FakeStats, startFakeProvider } from '../fake-provider/server.js';
import {
  type Colony,
  colony,
  ensureBuilt,
  killAfter,
  makeRepo,
  repeatedServes,
  resultDiff,
  seededRandom,
  startColony,
} from './harness.js';

const LATENCY_MS = 150;
const STREAM_FRAME_DELAY_MS = 25;
const GOAL = 'Generate the data table, add average() and a money() helper, update the notes, keep a progress log.';
const VERIFY = 'node --check src/ledger.js';
/** Kills to land in total, and the most kills aimed at one run. */
const MIN_KILLS = 22;
const MAX_KILLS_PER_RUN = 4;
const MAX_CRASH_RUNS = 12;
const SEED = Number(process.env.DURABILITY_SEED ?? 20_260_214);

interface Baseline {
  stream: boolean;
  runId: string;
  diff: string;
  stats: FakeStats;
  durationMs: number;
}

const fakes: FakeProvider[] = [];

function startFake(): Promise<FakeProvider> {
  return startFakeProvider({ policy: durabilityPolicy, latencyMs: LATENCY_MS, streamFrameDelayMs: STREAM_FRAME_DELAY_MS, record: false }).then(
    (fake) => {
      fakes.push(fake);
      return fake;
    },
  );
}

function runArgs(repo: string, fakeUrl: string, stream: boolean): string[] {
  const args = ['run', '--repo', repo, '--goal', GOAL, '--model', 'openai-chat:fake', '--base-url', fakeUrl, '--verify', VERIFY, '--json'];
  return stream ? [...args, '--stream'] : args;
}

/** The last JSON line the process printed (what it was doing when it died), shortened. */
function lastActivity(c: Colony): string {
  for (let i = c.lines.length - 1; i >= 0; i--) {
    const line = c.lines[i] ?? '';
    if (!line.startsWith('{')) continue;
    try {
      const e = JSON.parse(line) as { kind?: string; data?: { step?: number; name?: string } };
      if (e.kind) return `${e.kind}${e.data?.step !== undefined ? ` step ${e.data.step}` : ''}${e.data?.name ? ` ${e.data.name}` : ''}`;
    } catch {
      // a partial line cut by the kill
    }
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

async function baselineRun(stream: boolean): Promise<Baseline> {
  const fake = await startFake();
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
  return { stream, runId: runId!, diff: await resultDiff(repo.dir, repo.base, runId!), stats: fake.stats(), durationMs };
}

interface CrashOutcome {
  runId: string;
  kills: number;
  /** What each killed process was last seen doing. */
  killedDuring: string[];
  finalCode: number | null;
  finalSummary: { status?: string };
  diff: string;
  stats: FakeStats;
}

/** One run under fire: `run`, killed; then `resume`s, each maybe killed; the last resume runs to the end. */
async function crashRun(stream: boolean, killTimes: number[]): Promise<CrashOutcome> {
  const fake = await startFake();
  const repo = await makeRepo(durabilityRepoFiles());
  let runId: string | null = null;
  let kills = 0;
  const killedDuring: string[] = [];
  let last: Colony | null = null;
  let lastCode: number | null = null;
  for (let attempt = 0; ; attempt++) {
    const killAt = killTimes[attempt];
    const c = runId ? startColony(['resume', runId, '--json']) : startColony(runArgs(repo.dir, fake.url, stream));
    last = c;
    if (killAt === undefined) {
      lastCode = (await c.exited).code;
      runId ??= await c.runId;
      break;
    }
    const killed = await killAfter(c, killAt);
    runId ??= (await c.runId) ?? (await runForRepo(repo.dir));
    if (!killed) {
      lastCode = (await c.exited).code;
      break;
    }
    // A kill before the run was even recorded tests nothing; it does not count.
    if (runId) {
      kills++;
      killedDuring.push(`${Math.round(killAt)}ms: ${lastActivity(c)}`);
    }
  }
  expect(runId, 'the run was never created').toBeTruthy();
  const id = runId!;
  const summaryLine = last?.lines[last.lines.length - 1] ?? '{}';
  let finalSummary: { status?: string } = {};
  try {
    finalSummary = JSON.parse(summaryLine) as { status?: string };
  } catch {
    finalSummary = { status: `unparsable last line: ${summaryLine.slice(0, 200)} / stderr: ${last?.stderr()}` };
  }
  const diff = await resultDiff(repo.dir, repo.base, id).catch((err: Error) => `no result branch: ${err.message}`);
  return { runId: id, kills, killedDuring, finalCode: lastCode, finalSummary, diff, stats: fake.stats() };
}

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

afterAll(async () => {
  await Promise.all(fakes.map((fake) => fake.close()));
});

describe('kill -9 at random points, then colony resume', () => {
  it(
    'finishes every run with the uninterrupted diff, serving each model request once except those in flight at a kill',
    async () => {
      // One after the other: two first-ever DBOS launches at once can deadlock (see the report).
      const plain = await baselineRun(false);
      const streamed = await baselineRun(true);
      // The same policy, streamed or not, does the same work.
      expect(streamed.diff).toBe(plain.diff);
      for (const b of [plain, streamed]) {
        expect(Object.values(b.stats.byKey).every((n) => n === 1)).toBe(true);
        expect(b.stats.requests).toBe(Object.keys(b.stats.byKey).length);
      }
      const span = Math.max(plain.durationMs, streamed.durationMs);

      const random = seededRandom(SEED);
      let totalKills = 0;
      const problems: string[] = [];
      const report: string[] = [];
      for (let n = 0; n < MAX_CRASH_RUNS && totalKills < MIN_KILLS; n++) {
        const stream = n % 2 === 1;
        const baseline = stream ? streamed : plain;
        const killTimes = Array.from({ length: MAX_KILLS_PER_RUN }, () => random() * span);
        const out = await crashRun(stream, killTimes);
        totalKills += out.kills;
        const tag = `seed ${SEED} crash run ${n} (${out.runId}, ${stream ? 'stream' : 'no stream'}, ${out.kills} kills: ${out.killedDuring.join('; ')})`;
        report.push(tag);

        if (out.finalCode !== 0 || out.finalSummary.status !== 'succeeded') {
          problems.push(`${tag}: final exit ${out.finalCode}, status ${out.finalSummary.status}`);
        }
        if (out.diff !== plain.diff) problems.push(`${tag}: result diff differs from the uninterrupted run's\n${diffHint(plain.diff, out.diff)}`);
        const repeated = repeatedServes(out.stats);
        if (repeated > out.kills) {
          problems.push(`${tag}: ${repeated} model requests served again, more than the ${out.kills} kill(s) can explain: ${JSON.stringify(out.stats.byKey)}`);
        }
        const baseKeys = Object.keys(baseline.stats.byKey).sort();
        const keys = Object.keys(out.stats.byKey).sort();
        if (JSON.stringify(keys) !== JSON.stringify(baseKeys)) {
          const extra = keys.filter((k) => !baseline.stats.byKey[k]);
          const missing = baseKeys.filter((k) => !out.stats.byKey[k]);
          problems.push(`${tag}: the conversation diverged from the uninterrupted run's (requests not in it: ${extra.length}, its requests never made: ${missing.length})`);
        }
        const verified = await colony(['verify', out.runId]);
        if (verified.code !== 0) problems.push(`${tag}: colony verify exited ${verified.code}: ${verified.stdout} ${verified.stderr}`);
      }
      process.stderr.write(`[durability] ${totalKills} kills over ${report.length} runs (baseline ${Math.round(span)} ms)\n${report.join('\n')}\n`);
      expect(problems, problems.join('\n\n')).toEqual([]);
      expect(totalKills).toBeGreaterThanOrEqual(MIN_KILLS);

      const listed = await colony(['runs', '--json', '--limit', '500']);
      const runs = JSON.parse(listed.stdout) as Array<{ runId: string; status: string }>;
      const ours = new Set(report.map((line) => /\((r-[^,]+),/.exec(line)?.[1]));
      expect(runs.filter((r) => ours.has(r.runId) && r.status === 'running')).toEqual([]);
    },
    600_000,
  );
});

/** The first differing lines of two diffs, for a readable failure. */
function diffHint(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `  line ${i + 1}: expected ${JSON.stringify(a[i]?.slice(0, 160))}\n  line ${i + 1}: actual   ${JSON.stringify(b[i]?.slice(0, 160))}`;
  }
  return '  (same lines)';
}
