/** The proxy's own answers: an error in the shape of the client's protocol. */
import type { ServerResponse } from 'node:http';
import type { Wire } from './wire.js';

export function sendError(
  res: ServerResponse,
  wire: Wire,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) {
    if (!res.writableEnded) res.destroy();
    return;
  }
  const text = JSON.stringify(wire.errorBody(status, message));
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    // Anthropic's clients read this: a refusal (4xx) is final; 502/504 may be retried.
    'x-should-retry': status < 500 ? 'false' : 'true',
    ...headers,
  });
  res.end(text);
}
