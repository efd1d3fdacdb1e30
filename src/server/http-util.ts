/** Small helpers for node:http handlers: JSON replies and bounded JSON bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 64 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, error: string): void {
  sendJson(res, status, { ok: false, error });
}

export type BodyResult = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Reads a JSON object body (≤ 64 KB); an empty body is `{}`. */
export function readJsonBody(req: IncomingMessage): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES && !done) {
        done = true;
        resolve({ ok: false, error: `body larger than ${MAX_BODY_BYTES} bytes` });
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (text === '') return resolve({ ok: true, value: {} });
      try {
        const value: unknown = JSON.parse(text);
        if (value && typeof value === 'object' && !Array.isArray(value))
          resolve({ ok: true, value: value as Record<string, unknown> });
        else resolve({ ok: false, error: 'body must be a JSON object' });
      } catch {
        resolve({ ok: false, error: 'body is not valid JSON' });
      }
    });
    req.on('error', () => {
      if (!done) {
        done = true;
        resolve({ ok: false, error: 'request aborted' });
      }
    });
  });
}

export function intParam(value: string | null, fallback: number, min: number, max: number): number {
  if (value === null || value === '') return fallback;
  const n = Number(value);
  return Number.isInteger(n) ? Math.min(max, Math.max(min, n)) : fallback;
}
