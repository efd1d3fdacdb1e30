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
});
