import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from '../../src/model/sse.js';

function parse(chunks: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((e) => events.push(e));
  for (const c of chunks) parser.push(c);
  parser.end();
  return events;
}

describe('createSseParser', () => {
  it('parses events with names, ids and multi-line data', () => {
    expect(parse(['event: message_start\ndata: {"a":1}\n\n', 'id: 7\ndata: line1\ndata: line2\n\n'])).toEqual(
      [
        { event: 'message_start', data: '{"a":1}' },
        { event: 'message', data: 'line1\nline2', id: '7' },
      ],
    );
  });
  it('handles any split of the byte stream, CRLF and CR line ends included', () => {
    const text = 'data: one\r\n\r\n: comment\r\ndata:two\r\rdata: three\n\n';
    const expected = [
      { event: 'message', data: 'one' },
      { event: 'message', data: 'two' },
      { event: 'message', data: 'three' },
    ];
    for (let i = 0; i <= text.length; i++) expect(parse([text.slice(0, i), text.slice(i)])).toEqual(expected);
    expect(parse(text.split(''))).toEqual(expected);
  });
  it('skips comments and events without data, keeps a space after the first one', () => {
    expect(parse([': keep-alive\n\nevent: ping\n\ndata:  two spaces\n\n'])).toEqual([
      { event: 'message', data: ' two spaces' },
    ]);
  });
  it('delivers a last event that lacks its blank line', () => {
    expect(parse(['data: [DONE]'])).toEqual([{ event: 'message', data: '[DONE]' }]);
  });

  it('stays linear on a long line cut into many small chunks', () => {
    const events: SseEvent[] = [];
    const parser = createSseParser((e) => events.push(e));
    const piece = 'a'.repeat(1024);
    const started = performance.now();
    expect(parser.push('data: ')).toBeUndefined();
    for (let i = 0; i < 8 * 1024; i++) expect(parser.push(piece)).toBeUndefined();
    parser.push('\n\n');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(events).toHaveLength(1);
    expect(events[0]?.data.length).toBe(8 * 1024 * 1024);
  });

  it('refuses a line longer than its limit, and everything after it', () => {
    const events: SseEvent[] = [];
    const parser = createSseParser((e) => events.push(e), { maxChars: 1000 });
    expect(parser.push('data: {"ok":1}\n\n')).toBeUndefined();
    expect(parser.push(`data: ${'a'.repeat(600)}`)).toBeUndefined();
    expect(parser.push('a'.repeat(600))).toBe('a stream line is longer than 1000 characters');
    expect(parser.push('\n\ndata: {"ok":2}\n\n')).toBe('a stream line is longer than 1000 characters');
    expect(parser.end()).toBe('a stream line is longer than 1000 characters');
    expect(events).toEqual([{ event: 'message', data: '{"ok":1}' }]);
  });

  it('refuses an event whose data lines never end in a blank line', () => {
    const events: SseEvent[] = [];
    const parser = createSseParser((e) => events.push(e), { maxChars: 1000 });
    let error: string | undefined;
    for (let i = 0; i < 20 && error === undefined; i++) error = parser.push(`data: ${'b'.repeat(100)}\n`);
    expect(error).toBe('a stream event is longer than 1000 characters');
    expect(events).toEqual([]);
  });
});
