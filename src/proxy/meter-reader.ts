/**
 * Reads a copy of an upstream answer while its bytes go on to the client: a stream event by event
 * through the protocol's accumulator (the one the built-in providers use), a whole body as JSON
 * through its decoder. The result is the turn to meter, or why there is none (an error sent inside
 * the stream, a body that is not the protocol's, one too large to keep).
 */
import { StringDecoder } from 'node:string_decoder';
import type { HttpError, ReadResult } from '../model/http.js';
import type { RawTurn } from '../model/providers/shared.js';
import { createSseParser } from '../model/sse.js';
import type { Wire } from './wire.js';

export interface MeterReader {
  /** True when the answer is an event stream. */
  readonly stream: boolean;
  push(chunk: Buffer): void;
  finish(): ReadResult<RawTurn>;
}

export function createMeterReader(
  wire: Wire,
  contentType: string | undefined,
  maxBytes: number,
): MeterReader {
  return /text\/event-stream/i.test(contentType ?? '')
    ? streamReader(wire, maxBytes)
    : wholeReader(wire, maxBytes);
}

function tooLarge(maxBytes: number): HttpError {
  return { kind: 'malformed', message: `the answer exceeded ${maxBytes} bytes: it was passed on unmetered` };
}

function streamReader(wire: Wire, maxBytes: number): MeterReader {
  const acc = wire.accumulator();
  let error: HttpError | undefined;
  let bytes = 0;
  const parser = createSseParser((event) => {
    error ??= acc.event(event);
  });
  const decoder = new StringDecoder('utf8');
  const feed = (text: string): void => {
    const failed = parser.push(text);
    if (failed !== undefined) error ??= { kind: 'malformed', message: failed };
  };
  return {
    stream: true,
    push(chunk) {
      if (error) return;
      bytes += chunk.length;
      if (bytes > maxBytes) error = tooLarge(maxBytes);
      else feed(decoder.write(chunk));
    },
    finish() {
      if (!error) feed(decoder.end());
      if (!error) {
        const failed = parser.end();
        if (failed !== undefined) error = { kind: 'malformed', message: failed };
      }
      return error ? { ok: false, error } : acc.finish();
    },
  };
}

function wholeReader(wire: Wire, maxBytes: number): MeterReader {
  const chunks: Buffer[] = [];
  let bytes = 0;
  return {
    stream: false,
    push(chunk) {
      bytes += chunk.length;
      if (bytes <= maxBytes) chunks.push(chunk);
    },
    finish() {
      if (bytes > maxBytes) return { ok: false, error: tooLarge(maxBytes) };
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return {
          ok: false,
          error: { kind: 'malformed', message: `the answer is not JSON: ${text.slice(0, 200)}` },
        };
      }
      return wire.decode(body);
    },
  };
}
