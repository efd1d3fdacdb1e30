/**
 * One JSON request from a worker to its run's owner (gateway.ts), over http:// or https:// with the
 * worker's own CA bundle (`colony worker --ca`): Node's fetch cannot be given a CA per call, and a
 * fleet's owner usually has a certificate of the fleet's own CA, not a public one.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface FleetRequest {
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** PEM CA certificates the owner's certificate must chain to (default: Node's built-in roots). */
  ca?: Buffer;
  signal: AbortSignal;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function fleetRequestJson<T>(url: string, init: FleetRequest): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: init.method ?? 'GET',
        headers: {
          ...init.headers,
          ...(init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}),
        },
        signal: init.signal,
        ...(target.protocol === 'https:' && init.ca ? { ca: init.ca } : {}),
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            res.destroy(new Error(`the answer from ${target.origin} is larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          try {
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as T,
            });
          } catch {
            reject(new Error(`${target.origin} answered ${res.statusCode} with a body that is not JSON`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
