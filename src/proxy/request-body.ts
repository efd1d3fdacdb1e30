/** A client's request body, read whole up to a limit (a model request is JSON, needed whole). */
import type { IncomingMessage } from 'node:http';
import { err, ok, type Result } from '../lang/result.js';

export type BodyError = 'too_large' | 'cut';

export function readRequestBody(req: IncomingMessage, maxBytes: number): Promise<Result<Buffer, BodyError>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const settle = (result: Result<Buffer, BodyError>): void => {
      if (done) return;
      done = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) settle(err('too_large'));
      else chunks.push(chunk);
    });
    req.on('end', () => settle(ok(Buffer.concat(chunks))));
    req.on('error', () => settle(err('cut')));
    req.on('close', () => settle(err('cut')));
  });
}
