/**
 * Server-sent events: a run's new events, resumable. The client's position is the last seq it saw
 * (`Last-Event-ID` header on reconnect, or `?after=`); every event after it is sent exactly once, in
 * seq order, each with `id: <seq>` so the browser's EventSource resumes by itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StoredEvent } from '../core/events.js';
import type { EventLog } from '../store/index.js';
import type { RunTracker } from './run-tracker.js';

const PAGE = 2000;
const KEEPALIVE_MS = 15_000;

/** Where a client resumes: Last-Event-ID wins over ?after= (the browser sets it on reconnect). */
export function resumePoint(req: IncomingMessage, url: URL): number {
  const header = req.headers['last-event-id'];
  const raw = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('after') ?? '0';
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

export function formatSse(event: StoredEvent): string {
  return `id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function streamRunEvents(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  runId: string,
  deps: { log: EventLog; tracker: RunTracker },
): void {
  let cursor = resumePoint(req, url);
  const agent = url.searchParams.get('agent') ?? undefined;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 1000\n\n');
  let closed = false;
  let pumping = false;
  let again = false;
  // One pump at a time: reads every page after the cursor, so nothing is skipped or sent twice.
  const pump = async (): Promise<void> => {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        for (;;) {
          const page = await deps.log.read(runId, { afterSeq: cursor, limit: PAGE });
          if (closed) return;
          let chunk = '';
          for (const event of page) {
            cursor = event.seq;
            if (agent === undefined || event.agent === agent) chunk += formatSse(event);
          }
          // With an agent filter, tell the client how far it has seen so a resume skips the rest.
          if (agent !== undefined && page.length > 0)
            chunk += `id: ${cursor}\nevent: cursor\ndata: ${cursor}\n\n`;
          if (chunk) res.write(chunk);
          if (page.length < PAGE) break;
        }
      } while (again && !closed);
    } catch {
      // The next notification retries from the same cursor.
    } finally {
      pumping = false;
    }
  };
  const unwatch = deps.tracker.watch(runId, () => void pump());
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  const close = () => {
    closed = true;
    unwatch();
    clearInterval(keepalive);
  };
  req.on('close', close);
  res.on('close', close);
  void pump();
}
