/**
 * The chaos model (test/fake-provider/chaos.ts) against real solo runs: executeRun in this process,
 * real git, the embedded Postgres log, the bubblewrap sandbox, and the fake provider over HTTP (all
 * three wire protocols, whole and streamed, with rare 5xx/429/dropped-connection faults). Over 20
 * seeded runs of 50+ turns each (1,000+ turns in all) it checks: no error escapes (executeRun never
 * throws nor fails to finish a run), every run ends with a final status and a reason (and its agent
 * with its own), every run's hash chain verifies, and nothing outside the checkout was written:
 * no file named with the run's marker anywhere the escapes aimed, /etc/passwd and /etc/shadow
 * unchanged, the user's repository untouched.
 */
import { execFileSync } from 'node:child_process';
import { homedir, tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import { type Coordination, createCoordination } from '../../src/coord/index.js';
import type { StoredEvent } from '../../src/core/events.js';
import { createProvider } from '../../src/model/index.js';
import type { ModelRecord, Protocol } from '../../src/model/types.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import { resolveHome, type Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { chaosWireFailures, createChaosModel } from '../fake-provider/chaos.js';
import { startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { markerFiles, sha256Of } from '../helpers/escape-evidence.js';
import { createUserRepo } from '../helpers/user-repo.js';

const RUNS = 20;
const SEED = 20_260_111;
const MAX_STEPS = 60;
const FINAL_STATUSES = ['succeeded', 'failed', 'stopped', 'budget_exhausted', 'deadline_exceeded'];
const WIRE: Protocol[] = ['openai-chat', 'anthropic', 'openai-responses'];
const MARKER = `colony-chaos-escape-${process.pid}-${Date.now().toString(36)}`;

/** Runs one at a time: executeRun runs DBOS, one per process (two runs at once collide in it). */
const CONCURRENCY = 1;

let store: Store;
let coord: Coordination;

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
});
afterAll(async () => {
  await coord?.close();
  await store?.close();
});

interface RunRecord {
  runId: string;
  protocol: Protocol;
  stream: boolean;
  status: string | null;
  reason: string | null;
  crash: string | null;
  agent: { status?: unknown; stopReason?: unknown; reason?: unknown } | null;
  turns: number;
  toolCalls: number;
  retries: number;
  kinds: Record<string, number>;
  chain: { ok: boolean; events: number };
  repoClean: boolean;
  ms: number;
}

async function chaosRun(i: number): Promise<RunRecord> {
  const protocol = WIRE[i % WIRE.length] as Protocol;
  const stream = i % 2 === 1;
  // Most runs give a final answer after 50+ turns; every fifth one runs into the step cap.
  const steps = i % 5 === 4 ? MAX_STEPS + 10 : 50 + (i % 8);
  const chaos = createChaosModel({ seed: SEED + i, steps, marker: MARKER });
  const fake = await startFakeProvider({
    policy: chaos.policy,
    failures: chaosWireFailures(SEED + i),
    record: false,
  });
  const repo = createUserRepo(
    { 'README.md': '# chaos repo\n', 'src/app.txt': 'line 1\nline 2\nline 3\n' },
    'colony-chaos-',
  );
  const record: ModelRecord = {
    id: `${protocol}:fake`,
    protocol,
    name: 'fake',
    contextWindow: 128_000,
    maxOutput: 8_192,
    prices: null,
    baseUrl: fake.url,
  };
  const spec: RunSpec = {
    runId: testRunId(`chaos-${i}`),
    topology: 'solo',
    repo: repo.dir,
    goal: 'Survive the chaos.',
    baseRef: 'HEAD',
    baseCommit: repo.base,
    model: record.id,
    baseUrl: fake.url,
    customModels: [record],
    maxSteps: MAX_STEPS,
    profile: 'coder',
    stream,
    modelTimeoutMs: 30_000,
    maxRetries: 3,
    bashTimeoutS: 20,
    deadlineAt: new Date(Date.now() + 10 * 60_000).toISOString(),
    sandbox: { enabled: true, network: false, passEnv: [] },
  };
  const started = performance.now();
  let crash: string | null = null;
  let status: string | null = null;
  let reason: string | null = null;
  try {
    await recordNewRun(store, spec);
    const result = await executeRun({
      store,
      spec,
      provider: createProvider(record, {
        apiKey: 'k',
        maxRetries: 3,
        baseDelayMs: 5,
        maxDelayMs: 50,
        timeoutMs: 30_000,
      }),
      env: { ...process.env, OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' },
      signal: new AbortController().signal,
      resumed: false,
      coordination: coord,
    });
    if (result.ok) ({ status, reason } = result.summary);
    else crash = `executeRun failed: ${result.error}`;
  } catch (error) {
    crash = `threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
  } finally {
    await fake.close();
  }
  const ms = performance.now() - started;
  await store.log.flush();
  const events: StoredEvent[] = await store.log.read(spec.runId);
  const agentFinished = events.find((e) => e.kind === 'agent.finished');
  const porcelain = execFileSync('git', ['status', '--porcelain', '--ignored'], {
    cwd: repo.dir,
    encoding: 'utf8',
  });
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo.dir, encoding: 'utf8' }).trim();
  return {
    runId: spec.runId,
    protocol,
    stream,
    status,
    reason,
    crash,
    agent: (agentFinished?.data as RunRecord['agent']) ?? null,
    turns: events.filter((e) => e.kind === 'model.response').length,
    toolCalls: events.filter((e) => e.kind === 'tool.finished').length,
    retries: events.filter((e) => e.kind === 'model.retry').length,
    kinds: chaos.stats().byKind,
    chain: await store.log.verify(spec.runId),
    repoClean: porcelain === '' && head === repo.base,
    ms,
  };
}

describe('a chaos model', () => {
  it(`${RUNS} solo runs of hostile turns: no crash, clear ends, intact chains, nothing written outside`, async () => {
    const guarded = ['/etc/passwd', '/etc/shadow'].map((file) => [file, sha256Of(file)] as const);
    const runs: RunRecord[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < RUNS) runs.push(await chaosRun(next++));
      }),
    );
    runs.sort((a, b) => a.runId.localeCompare(b.runId));

    const turns = runs.reduce((sum, r) => sum + r.turns, 0);
    const toolCalls = runs.reduce((sum, r) => sum + r.toolCalls, 0);
    const kinds: Record<string, number> = {};
    for (const r of runs) for (const [k, n] of Object.entries(r.kinds)) kinds[k] = (kinds[k] ?? 0) + n;
    const retries = runs.reduce((sum, r) => sum + r.retries, 0);
    const statuses: Record<string, number> = {};
    for (const r of runs)
      statuses[`${r.status}: ${r.agent?.stopReason}`] =
        (statuses[`${r.status}: ${r.agent?.stopReason}`] ?? 0) + 1;
    console.log(
      `chaos: ${runs.length} runs, ${turns} turns, ${toolCalls} tool calls, ` +
        `${retries} retried wire faults, ${Math.round(runs.reduce((s, r) => s + r.ms, 0) / 1000)} s of runs; ` +
        `ends: ${JSON.stringify(statuses)}; turns by kind: ${JSON.stringify(kinds)}`,
    );
    for (const r of runs.filter((r) => r.status !== 'succeeded'))
      console.log(
        `  ${r.runId} (${r.protocol}${r.stream ? ', stream' : ''}): ${r.status}: ${r.reason?.slice(0, 300)}`,
      );

    expect(runs.filter((r) => r.crash !== null).map((r) => `${r.runId}: ${r.crash}`)).toEqual([]);
    for (const r of runs) {
      expect(FINAL_STATUSES, `${r.runId} status`).toContain(r.status);
      expect(typeof r.reason === 'string' && r.reason.trim() !== '', `${r.runId} reason`).toBe(true);
      expect(r.agent, `${r.runId} agent.finished`).toMatchObject({
        status: expect.stringMatching(/^(done|failed|stopped)$/),
        stopReason: expect.any(String),
        reason: expect.stringMatching(/\S/),
      });
      expect(r.chain, `${r.runId} hash chain`).toMatchObject({ ok: true });
      expect(r.repoClean, `${r.runId}: the user's repository is untouched`).toBe(true);
    }
    expect(turns).toBeGreaterThanOrEqual(1000);

    // Nothing was written outside the checkouts.
    const found = [
      ...markerFiles(resolveHome(), MARKER),
      ...markerFiles(tmpdir(), MARKER, 3),
      ...markerFiles('/', MARKER, 1),
      ...markerFiles('/etc', MARKER, 2),
      ...markerFiles(homedir(), MARKER, 3),
    ];
    expect(found).toEqual([]);
    for (const [file, hash] of guarded) expect(sha256Of(file), `${file} unchanged`).toBe(hash);
  }, 240_000);
});
