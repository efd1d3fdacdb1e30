/**
 * Server-sent events: a run's new events, resumable. The client's position is the last seq it saw
 * (`Last-Event-ID` header on reconnect, or `?after=`); every event after it is sent exactly once, in
 * seq order, each with `id: <seq>` so the browser's EventSource resumes by itself.
 *
 * Bounded per client: events are written in chunks of at most `maxChunkBytes` (one event more when a
 * single event is larger), and when `res.write` says the socket is full the stream reads and writes
 * nothing more until 'drain'. A client that does not drain for `stallMs` is too far behind: it gets
 * an `event: reconnect` notice and the connection is closed (destroyed if even that does not go
 * out); its EventSource reconnects with Last-Event-ID and catches up from the log. At most
 * `maxConnections` streams are open per server; one more is answered 503 with Retry-After.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StoredEvent } from '../core/events.js';
import type { EventLog } from '../store/index.js';
import { sendError } from './http-util.js';
import type { RunTracker } from './run-tracker.js';

/** Events read from the log per query (the next page is read only once the last one is written). */
const PAGE = 500;
const KEEPALIVE_MS = 15_000;
/** How long a closed stream's last bytes may take before its socket is destroyed. */
const CLOSE_GRACE_MS = 1000;

export const SSE_DEFAULTS = {
  maxConnections: 64,
  maxChunkBytes: 256 * 1024,
  stallMs: 30_000,
  retryAfterS: 5,
} as const;

export interface SseLimits {
  /** Open streams per server (default 64); one more gets 503 with Retry-After. */
  maxConnections?: number;
  /** Most bytes handed to one client's socket before waiting for it to drain (default 256 KiB). */
  maxChunkBytes?: number;
  /** A client whose socket does not drain for this long is dropped (default 30 s). */
  stallMs?: number;
}

export interface SseStats {
  /** Streams open now. */
  open: number;
  /** Bytes waiting in the open streams' response and socket buffers now. */
  bufferedBytes: number;
  /** The most bytes one stream ever had waiting right after a write. */
  peakBufferedBytes: number;
  /** Streams answered 503 (over the cap). */
  refused: number;
  /** Streams closed because their client stayed behind for `stallMs`. */
  dropped: number;
}

export interface StreamDeps {
  log: EventLog;
  tracker: RunTracker;
}

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

/** With an agent filter, tells the client how far it has seen, so a resume skips the rest. */
function cursorLine(agent: string | undefined, cursor: number): string {
  return agent === undefined ? '' : `id: ${cursor}\nevent: cursor\ndata: ${cursor}\n\n`;
}

type DrainOutcome = 'drained' | 'closed' | 'stalled';

/** Waits until the response's buffer drains, the connection closes, or `stallMs` passes. */
function drained(res: ServerResponse, stallMs: number): Promise<DrainOutcome> {
  if (res.destroyed || res.writableEnded) return Promise.resolve('closed');
  return new Promise((resolve) => {
    const done = (outcome: DrainOutcome) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(outcome);
    };
    const onDrain = () => done('drained');
    const onClose = () => done('closed');
    const timer = setTimeout(() => done('stalled'), stallMs);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/** The open SSE streams of one server: the cap, and what they hold in memory. */
export class SseStreams {
  private readonly open = new Set<ServerResponse>();
  private readonly limits: Required<SseLimits>;
  private peak = 0;
  private refused = 0;
  private dropped = 0;

  constructor(limits: SseLimits = {}) {
    this.limits = {
      maxConnections: limits.maxConnections ?? SSE_DEFAULTS.maxConnections,
      maxChunkBytes: limits.maxChunkBytes ?? SSE_DEFAULTS.maxChunkBytes,
      stallMs: limits.stallMs ?? SSE_DEFAULTS.stallMs,
    };
  }

  stats(): SseStats {
    let buffered = 0;
    for (const res of this.open) buffered += res.writableLength;
    return {
      open: this.open.size,
      bufferedBytes: buffered,
      peakBufferedBytes: this.peak,
      refused: this.refused,
      dropped: this.dropped,
    };
  }

  /** False (and a 503 sent) when the server already has `maxConnections` streams open. */
  admit(res: ServerResponse): boolean {
    if (this.open.size < this.limits.maxConnections) return true;
    this.refused++;
    res.setHeader('retry-after', String(SSE_DEFAULTS.retryAfterS));
    sendError(
      res,
      503,
      `this server already streams to ${this.limits.maxConnections} clients (its limit, colony serve ` +
        `--max-streams); retry in ${SSE_DEFAULTS.retryAfterS} s or close another dashboard tab`,
    );
    return false;
  }

  /** Streams the run's events to one client (call `admit` first). */
  stream(req: IncomingMessage, res: ServerResponse, url: URL, runId: string, deps: StreamDeps): void {
    const { maxChunkBytes, stallMs } = this.limits;
    let cursor = resumePoint(req, url);
    const agent = url.searchParams.get('agent') ?? undefined;
    this.open.add(res);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    let closed = false;
    let waiting = false;
    let pumping = false;
    let again = false;

    /** Writes, then waits while the client is behind; false when the stream is over. */
    const send = async (text: string): Promise<boolean> => {
      if (closed) return false;
      const flushed = res.write(text);
      this.peak = Math.max(this.peak, res.writableLength);
      if (flushed) return true;
      waiting = true;
      const outcome = await drained(res, stallMs);
      waiting = false;
      if (outcome === 'stalled' && !closed) {
        close();
        this.drop(res, cursor);
      }
      return outcome === 'drained' && !closed;
    };

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
            let bytes = 0;
            for (const event of page) {
              cursor = event.seq;
              if (agent === undefined || event.agent === agent) {
                const text = formatSse(event);
                chunk += text;
                bytes += Buffer.byteLength(text);
              }
              if (bytes >= maxChunkBytes) {
                if (!(await send(chunk + cursorLine(agent, cursor)))) return;
                chunk = '';
                bytes = 0;
              }
            }
            if (page.length > 0) chunk += cursorLine(agent, cursor);
            if (chunk && !(await send(chunk))) return;
            if (page.length < PAGE) break;
          }
        } while (again && !closed);
      } catch {
        // The next notification retries from the same cursor.
      } finally {
        pumping = false;
      }
    };

    const keepalive = setInterval(() => {
      // A client that is behind already has bytes coming; nothing is added to its buffer.
      if (!waiting && res.writableLength === 0) res.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
    const unwatch = deps.tracker.watch(runId, () => void pump());
    const close = () => {
      if (closed) return;
      closed = true;
      this.open.delete(res);
      unwatch();
      clearInterval(keepalive);
    };
    req.on('close', close);
    res.on('close', close);
    void send('retry: 1000\n\n').then(async (open) => {
      if (open) await pump();
    });
  }

  /** A client too far behind: asked to reconnect (it resumes from its Last-Event-ID), then let go. */
  private drop(res: ServerResponse, cursor: number): void {
    this.dropped++;
    const data = JSON.stringify({ reason: 'too far behind', lastSeq: cursor });
    res.end(`event: reconnect\ndata: ${data}\n\n`);
    // The notice queues behind what the client has not read: if that does not go out soon, drop it all.
    const timer = setTimeout(() => res.destroy(), CLOSE_GRACE_MS);
    timer.unref();
    res.once('finish', () => clearTimeout(timer));
  }
}
