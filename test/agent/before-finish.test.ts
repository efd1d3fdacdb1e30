/**
 * AgentDeps.beforeFinish (issue 32, background workflow runs): messages it returns when the model
 * answered reopen the conversation instead of ending the agent, and replay reopens it the same way
 * when such a message was delivered (logged) after the answer and the process died before the next
 * model call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../src/agent/budget.js';
import { replayConversation } from '../../src/agent/conversation.js';
import { runAgent } from '../../src/agent/loop.js';
import type { EventKind, EventPayloads, StoredEvent } from '../../src/core/events.js';
import { createScrubber } from '../../src/core/secrets.js';
import { createScriptedProvider, resolveModel } from '../../src/model/index.js';
import type { ModelTurn } from '../../src/model/types.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

let seq = 0;
function event<K extends EventKind>(kind: K, data: EventPayloads[K]): StoredEvent {
  seq += 1;
  return { runId: 'r', agent: 'a', kind, data, seq, ts: '', hash: '', prevHash: '' } as StoredEvent;
}
const turn = (text: string): ModelTurn => ({
  text,
  toolCalls: [],
  stopReason: 'end',
  usage: { input: 1, cachedInput: 0, cacheWrite: 0, output: 1, reasoning: undefined },
  costUsd: 0,
  model: 'm',
});

describe('beforeFinish', () => {
  it('reopens the conversation with the messages it returns; an empty answer finishes', async () => {
    const model = resolveModel('scripted');
    if (!model.ok) throw new Error(model.error);
    const runId = testRunId('before-finish');
    const provider = createScriptedProvider([{ text: 'first answer' }, { text: 'second answer' }], {
      model: model.model,
    });
    let calls = 0;
    const outcome = await runAgent(
      { runId, name: 'a1', profile: 'plan', task: 'task', system: 's', tools: [], provider, maxSteps: 5 },
      {
        log: store.log,
        scrubber: createScrubber([]),
        budget: new Budget({}),
        history: [],
        beforeFinish: async () => (++calls === 1 ? [{ role: 'user', content: '[the run ended]' }] : []),
      },
    );
    provider.assertConsumed();
    expect(calls).toBe(2);
    expect(outcome).toMatchObject({
      status: 'done',
      stopReason: 'answered',
      steps: 2,
      finalText: 'second answer',
    });
    const responses = await store.log.read(runId, { kinds: ['model.response'] });
    // The second request: the task, the first answer and the message.
    expect(responses.map((e) => (e as StoredEvent<'model.response'>).data.requestMessages)).toEqual([1, 3]);
  });

  it('replay: a direct message delivered after an answer reopens the conversation', () => {
    const answered = event('model.response', {
      step: 1,
      turn: turn('waiting'),
      latencyMs: 1,
      requestMessages: 1,
    });
    const delivered = event('message.delivered', {
      ids: [3],
      via: 'interrupt',
      messages: [{ id: 3, from: 'colony', text: '[workflow wf1-c: done]' }],
    });
    const reopened = replayConversation('task', [answered, delivered]);
    expect(reopened.answered).toBe(false);
    expect(reopened.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(reopened.messages.at(-1)?.content).toContain('> [workflow wf1-c: done]');
    expect(replayConversation('task', [answered]).answered).toBe(true);
  });
});
