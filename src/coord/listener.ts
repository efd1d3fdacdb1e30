/**
 * One LISTEN connection per Coordination (normally one per process) and its in-process fan-out.
 * Every sent message NOTIFYs `colony_coord` on commit; the listener keeps a "may have unread direct
 * messages" flag per agent (so the injector that runs before every model call costs nothing when
 * there is no message) and wakes agents waiting idle for a message.
 *
 * Flag protocol: a flag is only trusted while the connection is up. A reader clears the flag
 * *before* querying; a NOTIFY that arrives during or after the query sets it again, so a message
 * committed after the query's snapshot is found by the next check. Unknown (never checked, or the
 * connection was lost since) means "query".
 */
import pg from 'pg';

export const NOTIFY_CHANNEL = 'colony_coord';
/** Rate-limit signals between the processes of one run (coord/rate-signal.ts), on the same connection. */
export const RATE_CHANNEL = 'colony_rate';
/** A run's task board changed in another process (a person's edit on the dashboard): payload = run id. */
export const BOARD_CHANNEL = 'colony_board';

/** The NOTIFY payload (kept small: the text stays in the table). */
export interface MessageNotice {
  /** run */
  r: string;
  /** message id */
  i: number;
  /** recipient (direct) */
  t: string | null;
  /** channel */
  c: string | null;
  /** sender */
  f: string;
}

interface Waiter {
  agent: string;
  wake(): void;
}

const key = (runId: string, agent: string) => `${runId}\u0000${agent}`;

export class NotifyListener {
  private client: pg.Client | null = null;
  private up = false;
  private closed = false;
  private first: Promise<void> | null = null;
  private connecting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryMs = 100;
  private readonly directFlags = new Map<string, boolean>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly rateHandlers = new Set<(payload: string) => void>();
  private readonly boardHandlers = new Set<(runId: string) => void>();
  /** Notifications received (for tests and benchmarks). */
  notices = 0;

  constructor(private readonly connection: pg.ClientConfig) {}

  /**
   * Resolves once the first connection attempt is over (up, or failed with a retry scheduled).
   * Never throws; later reconnects happen on a timer.
   */
  ready(): Promise<void> {
    this.first ??= this.connect();
    return this.first;
  }

  get isUp(): boolean {
    return this.up;
  }

  private connect(): Promise<void> {
    this.connecting ??= this.attempt().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async attempt(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.connection);
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (n) => {
      if (n.channel === NOTIFY_CHANNEL && n.payload) this.onNotice(n.payload);
      else if (n.channel === RATE_CHANNEL && n.payload)
        for (const handle of this.rateHandlers) handle(n.payload);
      else if (n.channel === BOARD_CHANNEL && n.payload)
        for (const handle of this.boardHandlers) handle(n.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}; LISTEN ${RATE_CHANNEL}; LISTEN ${BOARD_CHANNEL}`);
    } catch {
      await client.end().catch(() => {});
      this.scheduleRetry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.up = true;
    this.retryMs = 100;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.up = false;
    // Notifications may have been missed: nothing known any more; waiters re-check by query.
    this.directFlags.clear();
    this.wakeAll();
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect().then(() => this.wakeAll());
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 5000);
  }

  private onNotice(payload: string): void {
    let notice: MessageNotice;
    try {
      notice = JSON.parse(payload) as MessageNotice;
    } catch {
      return;
    }
    this.notices++;
    this.noteMessage(notice);
  }

  /** Records a committed message (from a NOTIFY, or directly by a sender in this process). */
  noteMessage(notice: MessageNotice): void {
    if (notice.t !== null) this.directFlags.set(key(notice.r, notice.t), true);
    const waiting = this.waiters.get(notice.r);
    if (!waiting) return;
    for (const w of [...waiting]) {
      // Direct: only the recipient. Channel: anyone but the sender may be a member; they re-check.
      if (notice.t !== null ? w.agent === notice.t : w.agent !== notice.f) w.wake();
    }
  }

  /** False only when it is known that no direct message arrived since the last check. */
  mayHaveDirect(runId: string, agent: string): boolean {
    if (!this.up) return true;
    return this.directFlags.get(key(runId, agent)) !== false;
  }

  /** Call right before querying direct messages (see the flag protocol above). */
  beforeDirectCheck(runId: string, agent: string): void {
    if (this.up) this.directFlags.set(key(runId, agent), false);
  }

  /** Back to unknown: the next check queries (after a failed or partial read). */
  forget(runId: string, agent: string): void {
    this.directFlags.delete(key(runId, agent));
  }

  /** Registers a waiter; call the returned function to unregister. */
  wait(runId: string, agent: string, wake: () => void): () => void {
    const waiter: Waiter = { agent, wake };
    let set = this.waiters.get(runId);
    if (!set) {
      set = new Set();
      this.waiters.set(runId, set);
    }
    set.add(waiter);
    return () => {
      const current = this.waiters.get(runId);
      current?.delete(waiter);
      if (current && current.size === 0) this.waiters.delete(runId);
    };
  }

  /** Calls `handle` with each rate signal's payload (while the connection is up); returns the unsubscribe. */
  onRateSignal(handle: (payload: string) => void): () => void {
    this.rateHandlers.add(handle);
    return () => this.rateHandlers.delete(handle);
  }

  /** Calls `handle` with the run id of each board change another process announced; returns the unsubscribe. */
  onBoardChange(handle: (runId: string) => void): () => void {
    this.boardHandlers.add(handle);
    return () => this.boardHandlers.delete(handle);
  }

  private wakeAll(): void {
    for (const set of this.waiters.values()) for (const w of [...set]) w.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.connecting;
    const client = this.client;
    this.client = null;
    this.up = false;
    this.wakeAll();
    if (client) await client.end().catch(() => {});
  }
}
