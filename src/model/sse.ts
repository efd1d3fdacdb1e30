/** One server-sent event. `event` is 'message' when the stream gave no event name. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export interface SseParser {
  /**
   * Feeds decoded text; complete events are passed to the callback. Returns an error message (and
   * ignores all further input) once a line or an event is longer than the parser's limit.
   */
  push(text: string): string | undefined;
  /** Ends the stream; a last event without its blank line is still delivered (lenient). */
  end(): string | undefined;
}

export interface SseLimits {
  /** Characters of one line, and of one event's data (its `data:` lines joined). Default 32 Mi. */
  maxChars?: number;
}

export const SSE_DEFAULT_MAX_CHARS = 32 * 1024 * 1024;

/**
 * A small SSE parser (WHATWG event-stream rules): lines end in CRLF, LF or CR; `data:` lines join
 * with '\n'; a blank line dispatches; lines starting with ':' are comments; one leading space after
 * the colon is dropped; an event with no data is not dispatched.
 *
 * Linear in its input however it is chunked: only new text is scanned, and an unfinished line is kept
 * as pieces. A line or event over `maxChars` is an error, so a stream that never sends a line end
 * (or never a blank line) cannot grow without bound.
 */
export function createSseParser(onEvent: (event: SseEvent) => void, limits: SseLimits = {}): SseParser {
  const maxChars = limits.maxChars ?? SSE_DEFAULT_MAX_CHARS;
  /** The unfinished line, in pieces (joined once it ends). */
  let pending: string[] = [];
  let pendingChars = 0;
  let data: string[] = [];
  let dataChars = 0;
  let event = '';
  let id: string | undefined;
  let failed: string | undefined;
  // A chunk may end between '\r' and '\n'; the '\n' opening the next chunk is then skipped.
  let skipLf = false;

  const dispatch = (): void => {
    if (data.length > 0) {
      const ev: SseEvent = { event: event || 'message', data: data.join('\n') };
      if (id !== undefined) ev.id = id;
      onEvent(ev);
    }
    data = [];
    dataChars = 0;
    event = '';
  };

  const line = (text: string): void => {
    if (text === '') {
      dispatch();
      return;
    }
    if (text.charCodeAt(0) === 58 /* ':' */) return;
    const colon = text.indexOf(':');
    const name = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* ' ' */) value = value.slice(1);
    if (name === 'data') {
      data.push(value);
      dataChars += value.length + 1;
      if (dataChars > maxChars) failed = `a stream event is longer than ${maxChars} characters`;
    } else if (name === 'event') event = value;
    else if (name === 'id' && !value.includes('\0')) id = value;
    // 'retry' and unknown fields are ignored: reconnection is not used here.
  };

  const takeLine = (piece: string): void => {
    if (pending.length === 0) line(piece);
    else {
      pending.push(piece);
      const whole = pending.join('');
      pending = [];
      pendingChars = 0;
      line(whole);
    }
  };

  return {
    push(text: string): string | undefined {
      if (failed !== undefined) return failed;
      let from = 0;
      if (skipLf && text.charCodeAt(0) === 10) from = 1;
      skipLf = false;
      for (let i = from; i < text.length && failed === undefined; i++) {
        const c = text.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        takeLine(text.slice(from, i));
        if (c === 13) {
          if (i + 1 < text.length) {
            if (text.charCodeAt(i + 1) === 10) i++;
          } else {
            skipLf = true;
          }
        }
        from = i + 1;
      }
      if (failed !== undefined) return failed;
      if (from < text.length) {
        pending.push(text.slice(from));
        pendingChars += text.length - from;
        if (pendingChars > maxChars) failed = `a stream line is longer than ${maxChars} characters`;
      }
      return failed;
    },
    end(): string | undefined {
      if (failed !== undefined) return failed;
      if (pending.length > 0) takeLine('');
      if (failed !== undefined) return failed;
      dispatch();
      return undefined;
    },
  };
}
