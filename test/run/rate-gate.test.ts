/**
 * The run's rate gate against the fake provider over real HTTP: 429s injected by the server make the
 * number of requests in flight AT THE SERVER drop (the whole run slows), the limit grows back by one
 * per window of successes, and executeRun wires it in (a `limit.hit {limit: 'model_concurrency'}`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import type { StoredEvent } from '../../src/core/events.js';
import { orchestratedPolicy } from '../../src/demo/orchestrated-policy.js';
import { createProvider } from '../../src/model/index.js';
import type { ModelRecord, ModelRequest } from '../../src/model/types.js';
import { RateGate } from '../../src/run/rate-gate.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { type Failure, type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

const LATENCY_MS = 150;
const MODEL: ModelRecord = {
  id: 'openai-chat:fake',
  protocol: 'openai-chat',
  name: 'fake',
  contextWindow: 128_000,
  maxOutput: 8_192,
  prices: null,
};

let fake: FakeProvider;
/** Requests the server is working on (arrived, not failed, not answered yet). */
let inFlight = 0;
/** Server-side samples at each arrival, tagged by the test (`phase`) and the gate's limit then. */
const samples: Array<{ inFlight: number; phase: string; limit: number | null }> = [];
let tag: () => { phase: string; limit: number | null } = () => ({ phase: '', limit: null });
const orchestrated = orchestratedPolicy();

/** Injects failures by request index (counted from now). */
function failWith(fail: (index: number) => Failure | null): void {
  inFlight = 0;
  samples.length = 0;
  fake.setFailures(({ index }) => {
    const failure = fail(index);
    // Injected failures answer at once; the rest wait LATENCY_MS at the server.
    if (!failure) samples.push({ inFlight: ++inFlight, ...tag() });
    return failure;
  });
}

beforeAll(async () => {
  fake = await startFakeProvider({
    latencyMs: LATENCY_MS,
    record: false,
    // Called when an answer leaves (after the latency).
    policy: (request, index) => {
      inFlight--;
      if (request.system.startsWith('gate test')) return { text: 'ok' };
      return orchestrated(request, index);
    },
  });
});
afterAll(async () => {
  await fake.close();
});

const request: ModelRequest = { system: 'gate test', messages: [{ role: 'user', content: 'hi' }], tools: [] };

describe('RateGate', () => {
  it('after 429s the whole run has fewer requests in flight at the server', async () => {
    // The first 8 requests get a 429 (retry after 40 ms); everything after succeeds.
    failWith((index) => (index < 8 ? { status: 429, retryAfterMs: 40 } : null));
    const shrinks: Array<{ value: number; used: number }> = [];
    const gate = new RateGate({ onShrink: (info) => shrinks.push(info) });
    const provider = gate.wrap(
      createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 3 }),
    );
    const callers = 32;
    const callsEach = 4;
    // 'first': some call that was in flight when the 429s came is still running; 'after': none is.
    let firstCallsDone = 0;
    tag = () => ({ phase: firstCallsDone < callers ? 'first' : 'after', limit: gate.stats().limit });
    const results = await Promise.all(
      Array.from({ length: callers }, async () => {
        const outcomes: boolean[] = [];
        for (let i = 0; i < callsEach; i++) {
          outcomes.push((await provider.call(request)).ok);
          if (i === 0) firstCallsDone++;
        }
        return outcomes;
      }),
    );
    expect(results.flat().every(Boolean)).toBe(true);
    // One burst of 429s halves once: 32 in flight → 16 (the others of the burst are not counted again;
    // only a call rate limited again after the decrease halves once more).
    expect(shrinks[0]).toEqual({ value: 16, used: 32 });
    expect(shrinks.length).toBeLessThan(8);
    const lowest = shrinks.at(-1)?.value ?? 0;
    // Before: more requests at the server at once than the halved limit allows.
    const first = samples.filter((s) => s.phase === 'first');
    expect(Math.max(...first.map((s) => s.inFlight))).toBeGreaterThan(16);
    // After: the server never holds more than the gate's limit (≤ 16, growing by 1 per window).
    const after = samples.filter((s) => s.phase === 'after');
    expect(after.length).toBeGreaterThan(callers);
    for (const s of after) expect(s.inFlight).toBeLessThanOrEqual(s.limit ?? 0);
    expect(Math.max(...after.map((s) => s.inFlight))).toBeLessThan(24);
    // Additive increase: ~100 successes grow the limit by a few, not back to 32.
    const limit = gate.stats().limit ?? 0;
    expect(limit).toBeGreaterThan(lowest);
    expect(limit).toBeLessThan(24);
  });

  it('repeated bursts keep halving down to a floor of 1 and queued calls still finish', async () => {
    // Every other request is rate limited for the first 40 requests.
    failWith((index) => (index < 40 && index % 2 === 0 ? { status: 429, retryAfterMs: 5 } : null));
    const gate = new RateGate();
    const provider = gate.wrap(
      createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 10 }),
    );
    const results = await Promise.all(Array.from({ length: 8 }, () => provider.call(request)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(gate.stats().shrinks).toBeGreaterThanOrEqual(3);
    expect(gate.stats().limit).toBeGreaterThanOrEqual(1);
    expect(gate.stats().inFlight).toBe(0);
  });

  it('reports a decrease only when the limit went down: a second 429 at the floor of 1 is not one (issue 33)', async () => {
    // One caller, 429 twice in a row: ∞ → 1 (reported), then 1 → 1 (nothing lowered).
    failWith((index) => (index < 2 ? { status: 429, retryAfterMs: 5 } : null));
    const shrinks: Array<{ value: number; used: number }> = [];
    const gate = new RateGate({ onShrink: (info) => shrinks.push(info) });
    const provider = gate.wrap(
      createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 3 }),
    );
    expect((await provider.call(request)).ok).toBe(true);
    expect(shrinks).toEqual([{ value: 1, used: 1 }]);
    expect(gate.stats().shrinks).toBe(1);
  });

  it('a queued call is refused as aborted when its signal aborts', async () => {
    failWith((index) => (index === 0 ? { status: 429 } : null));
    const gate = new RateGate();
    // No retries: the 429 comes back as a final rate_limit error and halves 1 → 1.
    const provider = gate.wrap(
      createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 0 }),
    );
    const first = await provider.call(request);
    expect(first.ok).toBe(false);
    expect(gate.stats().limit).toBe(1);
    const running = provider.call(request);
    const controller = new AbortController();
    const queued = provider.call(request, { signal: controller.signal });
    controller.abort();
    const refused = await queued;
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.kind).toBe('aborted');
    expect((await running).ok).toBe(true);
  });
});

describe('executeRun with the rate gate', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore();
  });
  afterAll(async () => {
    await store.close();
  });

  it('logs limit.hit {limit: model_concurrency} when a 429 shrinks the run', async () => {
    failWith((index) => (index === 0 ? { status: 429, retryAfterMs: 10 } : null));
    const repo = createUserRepo({ 'README.md': '# repo\n' }, 'colony-gate-');
    const spec: RunSpec = {
      runId: testRunId('gate'),
      topology: 'orchestrated',
      repo: repo.dir,
      goal: 'Inspect. plan: a:1,b:1',
      baseRef: 'HEAD',
      baseCommit: repo.base,
      model: MODEL.id,
      baseUrl: fake.url,
      customModels: [{ ...MODEL, protocol: 'openai-chat', baseUrl: fake.url }],
      maxSteps: 10,
      profile: 'coder',
      stream: false,
      modelTimeoutMs: 30_000,
      maxRetries: 2,
      bashTimeoutS: 30,
    };
    await recordNewRun(store, spec);
    const result = await executeRun({
      store,
      spec,
      provider: createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 2 }),
      env: { ...process.env, OPENAI_API_KEY: 'k' },
      signal: new AbortController().signal,
      resumed: false,
    });
    expect(result.ok && result.summary.status).toBe('succeeded');
    const hits = (await store.log.read(spec.runId, { kinds: ['limit.hit'] })) as StoredEvent<'limit.hit'>[];
    expect(hits.map((e) => e.data)).toContainEqual({ limit: 'model_concurrency', value: 1, used: 1 });
    const retries = await store.log.read(spec.runId, { kinds: ['model.retry'] });
    expect(retries).toHaveLength(1);
  });
});
