import { describe, expect, it } from 'vitest';
import { createScriptedProvider, estimateRequestTokens } from '../../../src/model/providers/scripted.js';
import type { ModelRequest } from '../../../src/model/types.js';

const req = (messages: ModelRequest['messages'] = [{ role: 'user', content: 'go' }]): ModelRequest => ({
  system: 'sys',
  messages,
  tools: [],
});

describe('scripted provider: fixed sequence', () => {
  it('plays turns in order, then fails loudly on an unexpected extra call', async () => {
    const model = createScriptedProvider([
      { toolCalls: [{ name: 'ls', arguments: { path: '.' } }] },
      { text: 'done' },
    ]);
    expect(model.remaining()).toBe(2);
    const first = await model.call(req());
    expect(first.ok && first.turn).toMatchObject({
      stopReason: 'tool_calls',
      toolCalls: [{ id: 'call_0_0', name: 'ls', arguments: '{"path":"."}' }],
    });
    const second = await model.call(req());
    expect(second.ok && second.turn).toMatchObject({ text: 'done', stopReason: 'end', toolCalls: [] });
    model.assertConsumed();
    const extra = await model.call(req([{ role: 'user', content: 'one more?' }]));
    expect(extra.ok).toBe(false);
    if (!extra.ok) {
      expect(extra.error.kind).toBe('script');
      expect(extra.error.message).toContain('unexpected call #3');
      expect(extra.error.message).toContain('one more?');
    }
    expect(model.calls()).toBe(3);
  });
  it('assertConsumed throws while turns are left', async () => {
    const model = createScriptedProvider([{ text: 'a' }, { text: 'b' }]);
    await model.call(req());
    expect(() => model.assertConsumed()).toThrow(/1 of 2 turn/);
  });
  it('sends string arguments raw and honours given ids and usage', async () => {
    const model = createScriptedProvider([
      {
        toolCalls: [{ name: 'edit', arguments: '{bad json', id: 'x1' }],
        usage: { input: 7, output: 3, cachedInput: 2 },
      },
    ]);
    const r = await model.call(req());
    expect(r.ok && r.turn.toolCalls[0]).toEqual({ id: 'x1', name: 'edit', arguments: '{bad json' });
    expect(r.ok && r.turn.usage).toEqual({
      input: 7,
      cachedInput: 2,
      cacheWrite: 0,
      output: 3,
      reasoning: 0,
    });
    expect(r.ok && r.turn.costUsd).toBe(0);
  });
  it('estimates tokens from the request and the turn when usage is not given', async () => {
    const long = 'x'.repeat(4000);
    const model = createScriptedProvider([{ text: 'y'.repeat(400) }]);
    const r = await model.call(req([{ role: 'user', content: long }]));
    expect(r.ok && r.turn.usage.input).toBe(estimateRequestTokens(req([{ role: 'user', content: long }])));
    expect(r.ok && r.turn.usage.input).toBeGreaterThan(1000);
    expect(r.ok && r.turn.usage.output).toBe(100);
  });
});

describe('scripted provider: policy', () => {
  it('reacts to the request and has no remaining count', async () => {
    const model = createScriptedProvider((request, i) => {
      const last = request.messages[request.messages.length - 1];
      return last?.role === 'tool'
        ? { text: `saw ${last.content} on call ${i}` }
        : { toolCalls: [{ name: 'ls', arguments: {} }] };
    });
    const a = await model.call(req());
    expect(a.ok && a.turn.stopReason).toBe('tool_calls');
    const b = await model.call(
      req([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_0_0', name: 'ls', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'call_0_0', name: 'ls', content: 'README.md', isError: false },
      ]),
    );
    expect(b.ok && b.turn.text).toBe('saw README.md on call 1');
    expect(model.remaining()).toBeNull();
    model.assertConsumed();
  });
  it('turns a throwing policy into a script error', async () => {
    const model = createScriptedProvider(() => {
      throw new Error('no idea');
    });
    const r = await model.call(req());
    expect(!r.ok && r.error).toMatchObject({ kind: 'script', message: expect.stringContaining('no idea') });
  });
});
