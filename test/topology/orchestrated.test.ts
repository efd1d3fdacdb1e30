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
/** Arrival time at the fake server of each request, by agent (the server answers LATENCY_MS later). */
const spans: Array<{ agent: string; start: number; end: number }> = [];

beforeAll(async () => {
  store = await openTestStore();
  const policy = orchestratedPolicy();
  fake = await startFakeProvider({
    latencyMs: LATENCY_MS,
    record: false,
    policy: (request, index) => {
      // The server waits LATENCY_MS before asking the policy: the span is the time before.
      const end = Date.now();
      const agent = /You are subagent "([^"]+)"/.exec(request.system)?.[1] ?? 'lead';
      spans.push({ agent, start: end - LATENCY_MS, end });
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
    const { summary, metrics } = await runPlan('a:2,b:2,c:2 / a:2,a:2,b:2');
    expect(summary.status).toBe('succeeded');
    expect(metrics.tasksAssigned).toBe(6);
    const first = (agent: string) => spans.find((s) => s.agent === agent);
    const [a, b, c] = [first('a'), first('b'), first('c')];
    if (!a || !b || !c) throw new Error('missing subagent requests');
    // Different subagents' first requests were in flight at the same time.
    expect(overlaps(a, b) && overlaps(b, c) && overlaps(a, c)).toBe(true);
    // a's two tasks of wave 2 (4 requests) never overlap each other.
    const aSpans = spans.filter((s) => s.agent === 'a');
    expect(aSpans).toHaveLength(6);
    for (let i = 1; i < aSpans.length; i++) {
      expect((aSpans[i] as { start: number }).start).toBeGreaterThanOrEqual(
        (aSpans[i - 1] as { end: number }).end - 5,
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
