import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../src/agent/budget.js';
import { type AgentOutcome, type AgentSpec, runAgent } from '../../src/agent/loop.js';
import { toolsForProfile } from '../../src/agent/profiles.js';
import type { StoredEvent } from '../../src/core/events.js';
import { createScrubber } from '../../src/core/secrets.js';
import { createScriptedProvider, resolveModel, type ScriptedTurn } from '../../src/model/index.js';
import type { ModelRecord } from '../../src/model/types.js';
import type { Store } from '../../src/store/index.js';
import type { EventLog } from '../../src/store/types.js';
import { openTestStore, testRunId } from '../helpers/db.js';

let store: Store;
let root: string;
const scripted = (() => {
  const r = resolveModel('scripted');
  if (!r.ok) throw new Error(r.error);
  return r.model;
})();

beforeAll(async () => {
  store = await openTestStore();
  root = mkdtempSync(join(tmpdir(), 'colony-loop-'));
});
afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

function spec(
  runId: string,
  turns: ScriptedTurn[],
  overrides: Partial<AgentSpec> & { model?: ModelRecord } = {},
) {
  const tools = toolsForProfile('coder', root);
  if (!tools.ok) throw new Error(tools.error);
  const provider = createScriptedProvider(turns, { model: overrides.model ?? scripted });
  const agentSpec: AgentSpec = {
    runId,
    name: 'a1',
    profile: 'coder',
    task: 'do the thing',
    system: 'you are a test agent',
    tools: tools.tools,
    provider,
    maxSteps: 20,
    ...overrides,
  };
  return { agentSpec, provider };
}

const deps = (extra: { budget?: Budget; history?: StoredEvent[]; secrets?: string[] } = {}) => ({
  log: store.log,
  scrubber: createScrubber(extra.secrets ?? []),
  budget: extra.budget ?? new Budget({}),
  history: extra.history ?? [],
});

const kinds = (events: StoredEvent[]) => events.map((e) => e.kind);

describe('runAgent', () => {
  it('runs tool calls, logs every step in order and ends on the final answer', async () => {
    const runId = testRunId('loop');
    const { agentSpec, provider } = spec(runId, [
      { toolCalls: [{ name: 'write', arguments: { path: 'a.txt', content: 'hello' } }] },
      { toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] },
      { text: 'done' },
    ]);
    const outcome = await runAgent(agentSpec, deps());
    expect(outcome).toMatchObject({ status: 'done', stopReason: 'answered', steps: 3, finalText: 'done' });
    provider.assertConsumed();
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('hello');
    const events = await store.log.read(runId);
    expect(kinds(events)).toEqual([
      'model.response',
      'tool.started',
      'tool.intent', // the write's, committed before the file is written
      'tool.finished',
      'model.response',
      'tool.started',
      'tool.finished',
      'model.response',
      'agent.finished',
    ]);
    const readResult = events[6] as StoredEvent<'tool.finished'>;
    expect(readResult.data.content).toContain('hello');
  });

  it('reports its outcome to onOutcome once, before agent.finished is committed', async () => {
    const runId = testRunId('loop-outcome');
    const { agentSpec } = spec(runId, [{ toolCalls: [{ name: 'ls', arguments: {} }] }, { text: 'done' }]);
    // The real log, with agent.finished held until the test lets go.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const log: EventLog = Object.assign(Object.create(store.log) as EventLog, {
      append: ((event) =>
        event.kind === 'agent.finished'
          ? held.then(() => store.log.append(event))
          : store.log.append(event)) as EventLog['append'],
    });
    const seen: AgentOutcome[] = [];
    let returned = false;
    const running = runAgent(agentSpec, { ...deps(), log, onOutcome: (o) => seen.push(o) }).finally(() => {
      returned = true;
    });
    for (let i = 0; i < 500 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toMatchObject([{ status: 'done', stopReason: 'answered', steps: 2, finalText: 'done' }]);
    expect(returned).toBe(false);
    letGo();
    expect(await running).toEqual(seen[0]);
    expect(seen).toHaveLength(1);
    expect(kinds(await store.log.read(runId)).at(-1)).toBe('agent.finished');
  });

  it('turns unknown tools, invalid JSON and bad arguments into error results the model reads', async () => {
    const runId = testRunId('loop-bad');
    const { agentSpec } = spec(runId, [
      { toolCalls: [{ name: 'teleport', arguments: {} }] },
      { toolCalls: [{ name: 'read', arguments: '{"path": ' }] },
      { toolCalls: [{ name: 'edit', arguments: { path: 42 } }] },
      { text: 'gave up' },
    ]);
    const outcome = await runAgent(agentSpec, deps());
    expect(outcome.status).toBe('done');
    const results = (await store.log.read(runId, {
      kinds: ['tool.finished'],
    })) as StoredEvent<'tool.finished'>[];
    expect(results.map((r) => r.data.isError)).toEqual([true, true, true]);
    expect(results[0]?.data.content).toMatch(/unknown tool "teleport"/);
    expect(results[1]?.data.content).toMatch(/not valid JSON/);
  });

  it('stops at the step cap with a logged limit event', async () => {
    const runId = testRunId('loop-cap');
    const forever: ScriptedTurn = { toolCalls: [{ name: 'ls', arguments: {} }] };
    const { agentSpec } = spec(runId, [forever, forever, forever], { maxSteps: 2 });
    const outcome = await runAgent(agentSpec, deps());
    expect(outcome).toMatchObject({ status: 'stopped', stopReason: 'max_steps', steps: 2 });
    const limit = (await store.log.read(runId, { kinds: ['limit.hit'] }))[0] as StoredEvent<'limit.hit'>;
    expect(limit.data).toEqual({ limit: 'max_steps', value: 2, used: 2 });
  });

  it('stops before a call that would exceed the token budget', async () => {
    const runId = testRunId('loop-budget');
    const turn: ScriptedTurn = {
      toolCalls: [{ name: 'ls', arguments: {} }],
      usage: { input: 400, output: 100 },
    };
    const { agentSpec, provider } = spec(runId, [turn, turn, turn, turn]);
    const outcome = await runAgent(agentSpec, deps({ budget: new Budget({ tokens: 1_000 }) }));
    expect(outcome.stopReason).toBe('budget_tokens');
    // 500 tokens per call: the third call would start at 1,000 used.
    expect(provider.calls()).toBe(2);
    expect(outcome.reason).toBe('budget_tokens of 1000 reached (used 1000)');
  });

  it('says the budget was exceeded when the call in flight already passed it (issue 33)', async () => {
    const runId = testRunId('loop-budget-over');
    const turn: ScriptedTurn = {
      toolCalls: [{ name: 'ls', arguments: {} }],
      usage: { input: 400, output: 100 },
    };
    const { agentSpec, provider } = spec(runId, [turn, turn]);
    const outcome = await runAgent(agentSpec, deps({ budget: new Budget({ tokens: 300 }) }));
    expect(provider.calls()).toBe(1);
    expect(outcome).toMatchObject({ status: 'stopped', stopReason: 'budget_tokens' });
    expect(outcome.reason).toBe('budget_tokens of 300 exceeded (used 500)');
  });

  it('resumes from its log without repeating completed model or tool calls', async () => {
    const runId = testRunId('loop-replay');
    writeFileSync(join(root, 'count.txt'), '');
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo x >> count.txt' } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo y >> count.txt' } }] },
      { text: 'finished' },
    ];
    // First life: only the first turn is available, then the "process dies" (the script runs out).
    const first = spec(runId, turns.slice(0, 1));
    const partial = await runAgent(first.agentSpec, deps());
    expect(partial.status).toBe('failed');
    // Remove the failure tail as if the process had been killed right after the first tool result.
    const history = (await store.log.read(runId)).filter(
      (e) => e.kind === 'model.response' || e.kind === 'tool.finished',
    );
    expect(history).toHaveLength(2);

    // Second life: a script holding only the remaining turns fails loudly if a logged call is repeated.
    const second = spec(runId, turns.slice(1));
    const outcome = await runAgent(second.agentSpec, deps({ history }));
    expect(outcome).toMatchObject({ status: 'done', steps: 3, finalText: 'finished' });
    second.provider.assertConsumed();
    expect(readFileSync(join(root, 'count.txt'), 'utf8')).toBe('x\ny\n');
  });

  it('re-runs only a tool call whose result was never logged', async () => {
    const runId = testRunId('loop-inflight');
    writeFileSync(join(root, 'inflight.txt'), '');
    const call: ScriptedTurn = {
      toolCalls: [{ name: 'bash', arguments: { command: 'echo once >> inflight.txt' }, id: 'c1' }],
    };
    const first = spec(runId, [call]);
    await runAgent(first.agentSpec, deps());
    // Keep only the model response: the tool result "was lost in the crash", and the file write too.
    writeFileSync(join(root, 'inflight.txt'), '');
    const history = (await store.log.read(runId)).filter((e) => e.kind === 'model.response');
    const second = spec(runId, [{ text: 'ok' }]);
    const outcome = await runAgent(second.agentSpec, deps({ history }));
    expect(outcome.steps).toBe(2);
    expect(readFileSync(join(root, 'inflight.txt'), 'utf8')).toBe('once\n');
  });

  it('compacts the conversation near the context window and logs it', async () => {
    const runId = testRunId('loop-compact');
    const small: ModelRecord = { ...scripted, contextWindow: 1_500 };
    const big = 'z'.repeat(1_200);
    const turns: ScriptedTurn[] = Array.from({ length: 12 }, (_, i) => ({
      toolCalls: [{ name: 'bash', arguments: { command: `printf '${big}' # ${i}` } }],
    }));
    turns.push({ text: 'end' });
    const { agentSpec } = spec(runId, turns, {
      model: small,
      provider: createScriptedProvider(turns, { model: small }),
    });
    const outcome = await runAgent(agentSpec, deps());
    expect(outcome.status).toBe('done');
    const compactions = (await store.log.read(runId, {
      kinds: ['compaction'],
    })) as StoredEvent<'compaction'>[];
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]?.data.summary).toMatch(/compacted/);
  });

  it('scrubs known secrets from tool output and model text before logging', async () => {
    const runId = testRunId('loop-secret');
    const secret = 'sk-test-SECRET-1234567890';
    writeFileSync(join(root, 'leak.txt'), `token=${secret}\n`);
    const { agentSpec } = spec(runId, [
      { toolCalls: [{ name: 'read', arguments: { path: 'leak.txt' } }] },
      { text: `I saw ${secret}` },
    ]);
    await runAgent(agentSpec, deps({ secrets: [secret] }));
    const raw = JSON.stringify(await store.log.read(runId));
    expect(raw).not.toContain(secret);
    expect(raw).toContain('[REDACTED]');
  });
});
