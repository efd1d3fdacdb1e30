/** A tiny real-HTTP client for the server tests (node:http, no fetch pooling surprises). */
import http from 'node:http';

export interface Reply {
  status: number;
  body: Record<string, unknown>;
  text: string;
  headers: http.IncomingHttpHeaders;
}

export function request(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; host?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request(
      url,
      {
        method,
        headers: {
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(options.host ? { host: options.host } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON (static files)
          }
          resolve({ status: res.statusCode ?? 0, body, text, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

/**
 * Opens an SSE stream and collects events until `until(events)` is true, then disconnects
 * (the way a browser tab closing or a network drop ends the stream).
 */
export function collectSse(
  base: string,
  path: string,
  until: (events: SseEvent[]) => boolean,
  headers: Record<string, string> = {},
): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const req = http.get(
      new URL(path, base),
      { headers: { accept: 'text/event-stream', ...headers } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`SSE status ${res.statusCode}`));
          return;
        }
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf('\n\n');
            let id: string | null = null;
            let event = 'message';
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('id: ')) id = line.slice(4);
              else if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            if (data.length === 0) continue;
            events.push({ id, event, data: data.join('\n') });
            if (until(events)) {
              req.destroy();
              resolve(events);
              return;
            }
          }
        });
        res.on('error', () => {});
      },
    );
    req.on('error', (err) => {
      if (!(err as NodeJS.ErrnoException).code?.includes('ECONNRESET')) reject(err);
    });
  });
}
