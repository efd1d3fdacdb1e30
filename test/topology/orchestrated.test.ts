/**
 * The orchestrated topology end to end through executeRun, with the lead and subagents answered by
 * the fake provider over real HTTP (latency injected), real Postgres and real git: the worked
 * example (CriticalSteps 15, total 26), parallel tasks (overlapping request spans), a failed task
 * re-assigned by the lead, and the thread limit reaching the lead as a tool error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import type { StoredEvent } from '../../src/core/events.js';
import { orchestratedPolicy } from '../../src/demo/orchestrated-policy.js';
import { createProvider } from '../../src/model/index.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { computeMetrics } from '../../src/view/metrics.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

const LATENCY_MS = 150;
let store: Store;
let fake: FakeProvider;
/** Each model request, by agent: from its arrival at the fake server until the server answers it. */
const spans: Array<{ agent: string; start: number; end: number }> = [];
/**
 * When set, the first request of each named subagent is held (instead of the latency) until all of
 * them have arrived: they can only all arrive if the subagents run at the same time.
 */
let holdFirst: { agents: Set<string>; arrived: Set<string>; all: Promise<void>; release: () => void } | null =
  null;

function holdFirstRequests(agents: string[]): NonNullable<typeof holdFirst> {
  let release = () => {};
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  holdFirst = { agents: new Set(agents), arrived: new Set(), all, release };
  return holdFirst;
}

beforeAll(async () => {
  store = await openTestStore();
  const policy = orchestratedPolicy();
  fake = await startFakeProvider({
    // The latency is the policy's (the server asks the policy on arrival), so a span is exact.
    latencyMs: 0,
    record: false,
    policy: async (request, index) => {
      const start = performance.now();
      const agent = /You are subagent "([^"]+)"/.exec(request.system)?.[1] ?? 'lead';
      const hold = holdFirst;
      if (hold?.agents.has(agent) && !hold.arrived.has(agent)) {
        hold.arrived.add(agent);
        if (hold.arrived.size === hold.agents.size) hold.release();
        await hold.all;
      } else await sleep(LATENCY_MS);
      spans.push({ agent, start, end: performance.now() });
      return policy(request, index);
    },
  });
});
afterAll(async () => {
  await fake.close();
  await store.close();
});

const MODEL = {
  id: 'openai-chat:fake',
  protocol: 'openai-chat' as const,
  name: 'fake',
  contextWindow: 128_000,
  maxOutput: 8_192,
  prices: { input: 1, cachedInput: 0.1, cacheWrite: 1, output: 4 },
};

async function runPlan(plan: string, extra: Partial<RunSpec> = {}) {
  const repo = createUserRepo({ 'README.md': '# repo\n', 'src/a.txt': 'a\n' }, 'colony-orch-');
  const spec: RunSpec = {
    runId: testRunId('orch'),
    topology: 'orchestrated',
    repo: repo.dir,
    goal: `Inspect the repository. plan: ${plan}`,
    baseRef: 'HEAD',
    baseCommit: repo.base,
    model: MODEL.id,
    baseUrl: fake.url,
    customModels: [{ ...MODEL, baseUrl: fake.url }],
    maxSteps: 20,
    profile: 'coder',
    stream: false,
    modelTimeoutMs: 30_000,
    maxRetries: 0,
    bashTimeoutS: 30,
    ...extra,
  };
  const provider = createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 0 });
  await recordNewRun(store, spec);
  const result = await executeRun({
    store,
    spec,
    provider,
    env: { ...process.env, OPENAI_API_KEY: 'k' },
    signal: new AbortController().signal,
    resumed: false,
  });
  if (!result.ok) throw new Error(result.error);
  const events = await store.log.read(spec.runId);
  return { spec, summary: result.summary, events, metrics: computeMetrics(events) };
}

function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start < b.end && b.start < a.end;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('orchestrated topology', () => {
  it('computes the worked example from a real run: CriticalSteps 15, total 26, parallelism ≈ 1.73', async () => {
    const { summary, metrics, events } = await runPlan('a:4,b:7,c:2 / a:5,b:5');
    expect(summary.status).toBe('succeeded');
    expect(metrics.leadTurns.map((t) => t.criticalSteps)).toEqual([8, 6, 1]);
    expect(metrics.criticalSteps).toBe(15);
    expect(metrics.totalSteps).toBe(26);
    expect(metrics.parallelism).toBeCloseTo(26 / 15, 5);
    expect(metrics.tasksAssigned).toBe(5);
    expect(metrics.tasksDone).toBe(5);
    expect(metrics.agentsStarted).toBe(4);
    expect(metrics.finishRate).toBe(1);
    expect(metrics.perRole.explore?.agents).toBe(3);
    expect(metrics.perRole.lead?.steps).toBe(3);
    expect(metrics.run.costUsd).toBeGreaterThan(0);
    // Context sharding: the lead's conversation holds the results, never a subagent's tool output.
    const leadResults = events.filter(
      (e) => e.agent === 'lead' && e.kind === 'tool.finished',
    ) as StoredEvent<'tool.finished'>[];
    const assigned = leadResults.filter((e) => e.data.name === 'assign_task');
    expect(assigned).toHaveLength(5);
    expect(
      assigned.every((e) =>
        /^\[task-\d+ → [abc]: done, \d+ step\(s\)\]\n[abc] finished/.test(e.data.content),
      ),
    ).toBe(true);
    // Subagent a kept its context: its second task continued the same conversation (one agent.started).
    const aStarted = events.filter((e) => e.agent === 'a' && e.kind === 'agent.started');
    const aTasks = events.filter(
      (e) => e.agent === 'a' && e.kind === 'task.started',
    ) as StoredEvent<'task.started'>[];
    expect(aStarted).toHaveLength(1);
    expect(aTasks.map((e) => [e.data.index, e.data.stepsBefore])).toEqual([
      [0, 0],
      [1, 4],
    ]);
  });

  it('runs the tasks of one lead turn in parallel; two for one subagent run one after another', async () => {
    spans.length = 0;
    // The three subagents' first requests wait at the server until all three have arrived.
    const hold = holdFirstRequests(['a', 'b', 'c']);
    const { summary, metrics } = await runPlan('a:2,b:2,c:2 / a:2,a:2,b:2').finally(() => {
      holdFirst = null;
      hold.release();
    });
    expect(summary.status).toBe('succeeded');
    expect(metrics.tasksAssigned).toBe(6);
    expect([...hold.arrived].sort()).toEqual(['a', 'b', 'c']);
    const first = (agent: string) => spans.find((s) => s.agent === agent);
    const [a, b, c] = [first('a'), first('b'), first('c')];
    if (!a || !b || !c) throw new Error('missing subagent requests');
    // Different subagents' first requests were in flight at the same time.
    expect(overlaps(a, b) && overlaps(b, c) && overlaps(a, c)).toBe(true);
    // a's two tasks of wave 2 (4 requests) never overlap each other: each request of a arrives
    // after the previous one was answered.
    const aSpans = spans.filter((s) => s.agent === 'a');
    expect(aSpans).toHaveLength(6);
    for (let i = 1; i < aSpans.length; i++) {
      expect((aSpans[i] as { start: number }).start).toBeGreaterThanOrEqual(
        (aSpans[i - 1] as { end: number }).end,
      );
    }
    // The formula takes the longest task of a turn (a's two 2-step tasks count as 2, not 4).
    expect(metrics.criticalSteps).toBe(1 + 2 + (1 + 2) + 1);
  });

  it('re-assigns a failed task: the subagent hits its step cap, the lead gives it again', async () => {
    const { summary, metrics, events } = await runPlan('a:9', { subagentMaxSteps: 3 });
    expect(summary.status).toBe('succeeded');
    const finished = events
      .filter((e) => e.kind === 'task.finished')
      .map((e) => (e as StoredEvent<'task.finished'>).data);
    expect(finished.map((f) => [f.task, f.status, f.steps])).toEqual([
      ['task-1', 'stopped', 3],
      ['task-2', 'done', 2],
    ]);
    expect(metrics.tasksDone).toBe(1);
    const hit = events.find((e) => e.kind === 'limit.hit' && e.agent === 'a') as StoredEvent<'limit.hit'>;
    expect(hit.data.limit).toBe('max_steps');
  });

  it('refuses a start over maxStartsPerAgent: thread_limit_error reaches the lead', async () => {
    const { events } = await runPlan('a:1,a:1,a:1', { maxStartsPerAgent: 2 });
    const finished = events
      .filter((e) => e.kind === 'task.finished')
      .map((e) => (e as StoredEvent<'task.finished'>).data);
    expect(finished.map((f) => f.status)).toEqual(['done', 'done', 'refused']);
    expect(finished[2]?.result).toMatch(/^thread_limit_error: cannot start agent "a" again/);
    const hits = events.filter((e) => e.kind === 'limit.hit') as StoredEvent<'limit.hit'>[];
    expect(hits.some((h) => h.data.limit === 'max_starts_per_agent' && h.data.value === 2)).toBe(true);
  });
});
