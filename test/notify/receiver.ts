/**
 * A real HTTP webhook receiver for the notify tests: it records each request (headers, raw body, the
 * time it arrived) and answers with `status` after `delayMs`; `verify` checks a request's signature
 * with its own HMAC code (not Colony's), over the timestamp and the raw body.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request's body had arrived. */
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The answer to every request (default 204), unless `statuses` names this one's. */
  status?: number;
  /** The answers to the first requests, in order. */
  statuses?: number[];
  /** Sent as Location (a redirect). */
  location?: string;
  delayMs?: number;
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      const answer = () => {
        if (res.destroyed) return;
        const status = options.statuses?.[received.length - 1] ?? options.status ?? 204;
        res.writeHead(status, options.location ? { location: options.location } : {});
        res.end();
      };
      if (options.delayMs) setTimeout(answer, options.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether the request carries a valid signature of its timestamp and raw body under `secret`. */
export function validSignature(request: Received, secret: string): boolean {
  const timestamp = request.headers['x-colony-timestamp'];
  const signature = request.headers['x-colony-signature'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string') return false;
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`;
  return (
    expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature))
  );
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
