/**
 * A hub request's body as a stream of plain bytes: gzip decoded here (git compresses large fetch
 * negotiations; http-backend then sees plain bytes and no Content-Encoding), and cut off with an
 * error past `maxBytes` of *decoded* data, so a small compressed body cannot expand without bound.
 */
import type { IncomingMessage } from 'node:http';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { err, ok, type Result } from '../../lang/result.js';

export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the request body is larger than ${maxBytes} bytes`);
  }
}

export function requestBody(req: IncomingMessage, maxBytes: number): Result<Readable, string> {
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  let decoded: Readable = req;
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    const gunzip = createGunzip();
    req.on('error', (error) => gunzip.destroy(error));
    decoded = req.pipe(gunzip);
  } else if (encoding !== '' && encoding !== 'identity') {
    return err(`unsupported Content-Encoding: ${encoding}`);
  }
  const limited = new SizeLimit(maxBytes);
  decoded.on('error', (error) => limited.destroy(error));
  return ok(decoded.pipe(limited));
}

class SizeLimit extends Transform {
  private seen = 0;
  constructor(private readonly maxBytes: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.maxBytes) done(new BodyTooLarge(this.maxBytes));
    else done(null, chunk);
  }
}

/**
 * Reads from `body` until `enough(bytesSoFar)` or the end, then leaves the stream paused (the rest
 * unread, for piping on). `ended` says whether the body is already over.
 */
export function readPrefix(
  body: Readable,
  enough: (data: Buffer) => boolean,
  maxBytes: number,
): Promise<Result<{ data: Buffer; ended: boolean }, Error>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Result<{ data: Buffer; ended: boolean }, Error>) => {
      body.pause();
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      const data = Buffer.concat(chunks);
      if (enough(data)) finish(ok({ data, ended: false }));
      else if (size > maxBytes)
        finish(err(new Error(`no end of the ref updates in the first ${maxBytes} bytes`)));
    };
    const onEnd = () => finish(ok({ data: Buffer.concat(chunks), ended: true }));
    const onError = (error: Error) => finish(err(error));
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
  });
}
