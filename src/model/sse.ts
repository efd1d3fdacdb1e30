/** One server-sent event. `event` is 'message' when the stream gave no event name. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export interface SseParser {
  /** Feeds decoded text; complete events are passed to the callback. */
  push(text: string): void;
  /** Ends the stream; a last event without its blank line is still delivered (lenient). */
  end(): void;
}

/**
 * A small SSE parser (WHATWG event-stream rules): lines end in CRLF, LF or CR; `data:` lines join
 * with '\n'; a blank line dispatches; lines starting with ':' are comments; one leading space after
 * the colon is dropped; an event with no data is not dispatched.
 */
export function createSseParser(onEvent: (event: SseEvent) => void): SseParser {
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  // A chunk may end between '\r' and '\n'; the '\n' opening the next chunk is then skipped.
  let skipLf = false;

  const dispatch = (): void => {
    if (data.length > 0) {
      const ev: SseEvent = { event: event || 'message', data: data.join('\n') };
      if (id !== undefined) ev.id = id;
      onEvent(ev);
    }
    data = [];
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
    if (name === 'data') data.push(value);
    else if (name === 'event') event = value;
    else if (name === 'id' && !value.includes('\0')) id = value;
    // 'retry' and unknown fields are ignored: reconnection is not used here.
  };

  return {
    push(text: string): void {
      let start = 0;
      if (skipLf && text.charCodeAt(0) === 10) start = 1;
      skipLf = false;
      const all = buffer + text.slice(start);
      let from = 0;
      for (let i = 0; i < all.length; i++) {
        const c = all.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        line(all.slice(from, i));
        if (c === 13) {
          if (i + 1 < all.length) {
            if (all.charCodeAt(i + 1) === 10) i++;
          } else {
            skipLf = true;
          }
        }
        from = i + 1;
      }
      buffer = all.slice(from);
    },
    end(): void {
      if (buffer !== '') line(buffer);
      buffer = '';
      dispatch();
    },
  };
}
