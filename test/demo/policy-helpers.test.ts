import { describe, expect, it } from 'vitest';
import { taskText, toolCall, toolExchanges } from '../../src/demo/policy-helpers.js';
import type { Message } from '../../src/model/types.js';

describe('demo policy helpers', () => {
  const messages: Message[] = [
    { role: 'user', content: 'Fix src/a.js' },
    {
      role: 'assistant',
      content: 'reading',
      toolCalls: [
        { id: 'c1', name: 'read', arguments: '{"path":"src/a.js"}' },
        { id: 'c2', name: 'bash', arguments: '{"command":"node --test"}' },
      ],
    },
    { role: 'tool', toolCallId: 'c2', name: 'bash', content: 'exit 1', isError: true },
    { role: 'tool', toolCallId: 'c1', name: 'read', content: '1\tx', isError: false },
    { role: 'user', content: 'later message' },
    { role: 'assistant', content: 'again', toolCalls: [{ id: 'c3', name: 'ls', arguments: 'not json' }] },
  ];

  it('pairs each tool call with its result, in call order', () => {
    expect(toolExchanges(messages)).toEqual([
      { name: 'read', args: { path: 'src/a.js' }, path: 'src/a.js', result: '1\tx', isError: false },
      { name: 'bash', args: { command: 'node --test' }, path: undefined, result: 'exit 1', isError: true },
      { name: 'ls', args: {}, path: undefined, result: '', isError: false },
    ]);
  });

  it('reads the task from the first user message and builds one-call turns', () => {
    expect(taskText(messages)).toBe('Fix src/a.js');
    expect(taskText([])).toBe('');
    expect(toolCall('t', 'read', { path: 'p' })).toEqual({
      text: 't',
      toolCalls: [{ name: 'read', arguments: { path: 'p' } }],
    });
  });
});
