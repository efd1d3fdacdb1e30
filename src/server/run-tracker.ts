/**
 * Follows runs for the server: one view-model accumulator (src/view/run-state.ts, the same fold as
 * `colony report`) per run, caught up from the log on demand (only events after the last seen seq are
 * read), and one shared poll per run while SSE clients watch it, so N open dashboards cost one query
 * per tick, not N.
 */
import type { StoredEvent } from '../core/events.js';
import type { EventLog } from '../store/index.js';
import { applyEvent, emptyRunState, type RunState } from '../view/run-state.js';

const PAGE = 10_000;
/** Runs kept in memory (a 100k-event run's state is a few tens of MB). */
const MAX_TRACKED = 16;

export interface TrackerOptions {
  /** How often a watched run's log is polled for new events (default 250 ms). */
  pollMs?: number;
  /** Reads pages of events for the fold (default: the EventLog's full events). */
  /** Reads a page of events for the fold (default: the log's slim read). */
  readPage?: EventPageReader;
}

interface Tracked {
  runId: string;
  state: RunState;
  refreshing: Promise<void> | null;
  watchers: Set<(lastSeq: number) => void>;
  timer: NodeJS.Timeout | null;
}

export type EventPageReader = (runId: string, afterSeq: number, limit: number) => Promise<StoredEvent[]>;

export class RunTracker {
  private readonly runs = new Map<string, Tracked>();
  private readonly pollMs: number;
  private readonly readPage: EventPageReader;
  private closed = false;

  constructor(
    private readonly log: EventLog,
    options: TrackerOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.readPage =
      options.readPage ?? ((runId, afterSeq, limit) => this.log.read(runId, { afterSeq, limit, slim: true }));
  }

  private tracked(runId: string): Tracked {
    let t = this.runs.get(runId);
    if (t) {
      // Map order is recency: move it to the end.
      this.runs.delete(runId);
      this.runs.set(runId, t);
      return t;
    }
    t = { runId, state: emptyRunState(), refreshing: null, watchers: new Set(), timer: null };
    this.runs.set(runId, t);
    // Forget the least recently used runs nobody watches, so a long-lived server stays small.
    for (const [id, other] of this.runs) {
      if (this.runs.size <= MAX_TRACKED) break;
      if (other.watchers.size === 0 && !other.refreshing && id !== runId) this.runs.delete(id);
    }
    return t;
  }

  /** The run's state, caught up with the log. Concurrent callers share one catch-up. */
  async state(runId: string): Promise<RunState> {
    const t = this.tracked(runId);
    await this.refresh(t);
    return t.state;
  }

  private refresh(t: Tracked): Promise<void> {
    t.refreshing ??= (async () => {
      try {
        for (;;) {
          const page = await this.readPage(t.runId, t.state.lastSeq, PAGE);
          for (const event of page) applyEvent(t.state, event);
          if (page.length < PAGE) break;
        }
      } finally {
        t.refreshing = null;
      }
    })();
    return t.refreshing;
  }

  /** Calls `onNew(lastSeq)` whenever the run's log grows; returns the unsubscribe function. */
  watch(runId: string, onNew: (lastSeq: number) => void): () => void {
    const t = this.tracked(runId);
    t.watchers.add(onNew);
    if (!t.timer && !this.closed) {
      const tick = async () => {
        const before = t.state.lastSeq;
        try {
          await this.refresh(t);
        } catch {
          // A failed poll (database restarting) is retried on the next tick.
        }
        if (t.state.lastSeq > before) for (const w of t.watchers) w(t.state.lastSeq);
        if (t.watchers.size > 0 && !this.closed) t.timer = setTimeout(tick, this.pollMs);
        else t.timer = null;
      };
      t.timer = setTimeout(tick, 0);
    }
    return () => {
      t.watchers.delete(onNew);
    };
  }

  close(): void {
    this.closed = true;
    for (const t of this.runs.values()) {
      if (t.timer) clearTimeout(t.timer);
      t.timer = null;
      t.watchers.clear();
    }
  }
}
