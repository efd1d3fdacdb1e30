/**
 * A response cut off at the output-token limit: the loop runs none of its tool calls (their arguments
 * may be incomplete) and gives each an error result the model reads in its next request, logged as a
 * normal tool result so a resume replays it. Over real HTTP against the fake provider, in each wire
 * protocol (OpenAI `finish_reason: length`, Responses `incomplete`/`max_output_tokens`, Anthropic
 * `stop_reason: max_tokens`), whole and streamed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../src/agent/budget.js';
import { runAgent, truncatedRefusal } from '../../src/agent/loop.js';
import { toolsForProfile } from '../../src/agent/profiles.js';
import { eventOf } from '../../src/core/events.js';
import { createScrubber } from '../../src/core/secrets.js';
import { createProvider } from '../../src/model/index.js';
import type { ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { ModelRecord, ModelTurn, Protocol } from '../../src/model/types.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';

const MAX_OUTPUT = 512;
let store: Store;
let fake: FakeProvider;
let root: string;

/** The cut-off response: a complete write call, then one whose arguments stop mid-string. */
const CUT_OFF: ScriptedTurn = {
  text: 'Writing both files.',
  toolCalls: [
    { name: 'write', arguments: { path: 'whole.txt', content: 'all of it' } },
    { name: 'write', arguments: '{"path": "half.txt", "content": "the first ha' },
  ],
  usage: { output: MAX_OUTPUT },
  stopReason: 'max_tokens',
};

beforeAll(async () => {
  store = await openTestStore();
  root = mkdtempSync(join(tmpdir(), 'colony-truncated-'));
  fake = await startFakeProvider({
    policy: (request) => (request.messages.some((m) => m.role === 'assistant') ? { text: 'ok' } : CUT_OFF),
  });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
  rmSync(root, { recursive: true, force: true });
});

function model(protocol: Protocol): ModelRecord {
  return {
    id: `${protocol}:fake`,
    protocol,
    name: 'fake',
    baseUrl: fake.url,
    contextWindow: 128_000,
    maxOutput: MAX_OUTPUT,
    prices: null,
  };
}

function agentFor(runId: string, protocol: Protocol, stream: boolean, worktree: string) {
  const tools = toolsForProfile('coder', worktree);
  if (!tools.ok) throw new Error(tools.error);
  return {
    runId,
    name: 'a1',
    profile: 'coder',
    task: 'write the files',
    system: 'you are a test agent',
    tools: tools.tools,
    provider: createProvider(model(protocol), { apiKey: 'k', maxRetries: 0 }),
    maxSteps: 5,
    stream,
  };
}

const deps = (history: Parameters<typeof runAgent>[1]['history'] = []) => ({
  log: store.log,
  scrubber: createScrubber([]),
  budget: new Budget({}),
  history,
});

const REFUSAL = `not run: your response was cut off at the output-token limit (${MAX_OUTPUT} tokens), so its tool arguments may be incomplete; send a shorter call (split large content over several calls)`;

describe('a response cut off at the output-token limit', () => {
  it('names the limit in the refusal', () => {
    expect(truncatedRefusal(MAX_OUTPUT)).toBe(REFUSAL);
  });

  for (const protocol of ['openai-chat', 'openai-responses', 'anthropic'] as const) {
    for (const stream of [false, true]) {
      it(`${protocol}${stream ? ' (stream)' : ''}: runs none of its tool calls; the model reads why`, async () => {
        const runId = testRunId('truncated');
        const worktree = mkdtempSync(join(root, 'wt-'));
        const from = fake.requests().length;
        const outcome = await runAgent(agentFor(runId, protocol, stream, worktree), deps());
        expect(outcome).toMatchObject({ status: 'done', stopReason: 'answered', steps: 2, finalText: 'ok' });
        expect(existsSync(join(worktree, 'whole.txt'))).toBe(false);
        expect(existsSync(join(worktree, 'half.txt'))).toBe(false);

        const events = await store.log.read(runId);
        const response = events.find((e) => e.kind === 'model.response');
        expect(response?.kind === 'model.response' && response.data.turn.stopReason).toBe('max_tokens');
        const results = events.flatMap((e) => (e.kind === 'tool.finished' ? [e.data] : []));
        expect(results.map((r) => [r.name, r.isError, r.content])).toEqual([
          ['write', true, REFUSAL],
          ['write', true, REFUSAL],
        ]);
        expect(events.filter((e) => e.kind === 'tool.started')).toHaveLength(2);

        const requests = fake.requests().slice(from);
        expect(requests).toHaveLength(2);
        const next = requests[1]?.request?.messages ?? [];
        expect(next.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
        expect(next.slice(2).map((m) => (m.role === 'tool' ? m.content : ''))).toEqual([REFUSAL, REFUSAL]);
      });
    }
  }

  it('a resumed agent refuses the calls of a logged cut-off response instead of running them', async () => {
    const runId = testRunId('truncated-resume');
    const worktree = mkdtempSync(join(root, 'wt-'));
    // The process died after logging the response, before any of its calls had a result.
    const turn: ModelTurn = {
      text: '',
      toolCalls: [{ id: 'call_0_0', name: 'write', arguments: '{"path":"whole.txt","content":"all of it"}' }],
      stopReason: 'max_tokens',
      usage: { input: 100, cachedInput: 0, cacheWrite: 0, output: MAX_OUTPUT, reasoning: 0 },
      costUsd: null,
      model: 'fake',
    };
    await store.log.append(
      eventOf(runId, 'a1', 'model.response', { step: 1, turn, latencyMs: 5, requestMessages: 1 }),
    );
    const history = await store.log.read(runId, { agent: 'a1' });
    const outcome = await runAgent(agentFor(runId, 'openai-chat', false, worktree), deps(history));
    expect(outcome).toMatchObject({ status: 'done', steps: 2, finalText: 'ok' });
    expect(existsSync(join(worktree, 'whole.txt'))).toBe(false);
    const results = await store.log.read(runId, { kinds: ['tool.finished'] });
    expect(results.map((e) => [e.data.callId, e.data.isError, e.data.content])).toEqual([
      ['call_0_0', true, REFUSAL],
    ]);
  });
});
