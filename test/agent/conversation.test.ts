import { describe, expect, it } from 'vitest';
import { replayConversation } from '../../src/agent/conversation.js';
import type { EventKind, EventPayloads, StoredEvent } from '../../src/core/events.js';
import type { ModelTurn } from '../../src/model/types.js';

let seq = 0;
function event<K extends EventKind>(kind: K, data: EventPayloads[K]): StoredEvent {
  seq += 1;
  return {
    runId: 'r',
    agent: 'a',
    kind,
    data,
    seq,
    ts: new Date().toISOString(),
    hash: '',
    prevHash: '',
  } as StoredEvent;
}
const usage = { input: 1, cachedInput: 0, cacheWrite: 0, output: 1, reasoning: undefined };
const turn = (text: string, calls: ModelTurn['toolCalls'] = []): ModelTurn => ({
  text,
  toolCalls: calls,
  stopReason: calls.length ? 'tool_calls' : 'end',
  usage,
  costUsd: 0,
  model: 'm',
});

describe('replayConversation', () => {
  it('rebuilds messages, steps and pending tool calls from the log', () => {
    const state = replayConversation('task', [
      event('model.response', {
        step: 1,
        turn: turn('', [
          { id: 'c1', name: 'ls', arguments: '{}' },
          { id: 'c2', name: 'ls', arguments: '{}' },
        ]),
        latencyMs: 1,
        requestMessages: 1,
      }),
      event('tool.finished', {
        step: 1,
        callId: 'c1',
        name: 'ls',
        isError: false,
        content: 'a',
        summary: 'a',
        durationMs: 1,
      }),
    ]);
    expect(state.steps).toBe(1);
    expect(state.pendingCalls.map((c) => c.id)).toEqual(['c2']);
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(state.answered).toBe(false);
  });

  it('puts interrupting direct messages after the tool results they followed, even if logged earlier', () => {
    const delivered = event('message.delivered', {
      ids: [7],
      via: 'interrupt',
      messages: [{ id: 7, from: 'peer-2', text: 'stop, I own src/a' }],
    });
    const state = replayConversation('task', [
      event('model.response', {
        step: 1,
        turn: turn('', [{ id: 'c1', name: 'ls', arguments: '{}' }]),
        latencyMs: 1,
        requestMessages: 1,
      }),
      delivered, // committed before the tool result
      event('tool.finished', {
        step: 1,
        callId: 'c1',
        name: 'ls',
        isError: false,
        content: 'a',
        summary: 'a',
        durationMs: 1,
      }),
      event('model.response', { step: 2, turn: turn('ok, yielding'), latencyMs: 1, requestMessages: 4 }),
    ]);
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(state.messages[3]?.content).toMatch(/peer-2[\s\S]*> stop, I own src\/a/);
    expect(state.answered).toBe(true);
  });

  it('keeps a delivered message for the next request when the crash came before the model call', () => {
    const state = replayConversation('task', [
      event('model.response', {
        step: 1,
        turn: turn('', [{ id: 'c1', name: 'ls', arguments: '{}' }]),
        latencyMs: 1,
        requestMessages: 1,
      }),
      event('tool.finished', {
        step: 1,
        callId: 'c1',
        name: 'ls',
        isError: false,
        content: 'a',
        summary: 'a',
        durationMs: 1,
      }),
      event('message.delivered', {
        ids: [1],
        via: 'interrupt',
        messages: [{ id: 1, from: 'user', text: 'hurry' }],
      }),
    ]);
    expect(state.messages.at(-1)?.content).toMatch(/the user[\s\S]*> hurry/);
  });

  it('keeps the logged file intent of a call in flight, and only of a call still pending', () => {
    const intent = (callId: string, step: number) =>
      event('tool.intent', {
        step,
        callId,
        name: 'edit',
        path: 'a.js',
        beforeHash: null,
        afterHash: 'h',
        result: 'Edited a.js',
      });
    const response = (step: number, ids: string[]) =>
      event('model.response', {
        step,
        turn: turn(
          '',
          ids.map((id) => ({ id, name: 'edit', arguments: '{}' })),
        ),
        latencyMs: 1,
        requestMessages: 1,
      });
    const finished = (callId: string, step: number) =>
      event('tool.finished', {
        step,
        callId,
        name: 'edit',
        isError: false,
        content: 'ok',
        summary: 'ok',
        durationMs: 1,
      });
    const state = replayConversation('task', [
      response(1, ['c1']),
      intent('c1', 1), // in flight at a crash, then its result was never logged
      response(2, ['c1', 'c2', 'c3']), // a later response reusing the id: the old intent is not this call's
      intent('c2', 2),
      finished('c2', 2),
      intent('c3', 2),
      intent('gone', 2), // not a call of this response
    ]);
    expect(state.pendingCalls.map((c) => c.id)).toEqual(['c1', 'c3']);
    expect([...state.intents.keys()]).toEqual(['c3']);
    expect(state.intents.get('c3')).toMatchObject({ step: 2, path: 'a.js', afterHash: 'h' });
  });
});
