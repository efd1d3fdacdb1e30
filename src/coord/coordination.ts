/**
 * The coordination services of one store: shared context, messages (with the process's LISTEN
 * connection), claims and the task board on them. Create one per process; close it before closing the store.
 */
import type { Store } from '../store/index.js';
import { BoardSignal } from './board-signal.js';
import { ClaimService, DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_MS } from './claims.js';
import { ContextService } from './context.js';
import { BOARD_CHANNEL, NotifyListener } from './listener.js';
import { MessageService } from './messages.js';
import { TaskService } from './tasks.js';

export interface CoordinationOptions {
  /** Claim lease (default 5 minutes). */
  leaseMs?: number;
  /** Heartbeat interval for startHeartbeat (default 30 s). */
  heartbeatMs?: number;
}

/**
 * A run's claim timing (`spec.claimLeaseMs`; absent: the defaults): the heartbeat beats five times
 * per lease, so a renewal is never more than a fifth of the lease late.
 */
export function runLeaseOptions(claimLeaseMs: number | undefined): CoordinationOptions {
  return claimLeaseMs === undefined
    ? {}
    : { leaseMs: claimLeaseMs, heartbeatMs: Math.max(100, Math.floor(claimLeaseMs / 5)) };
}

export class Coordination {
  readonly context: ContextService;
  readonly messages: MessageService;
  readonly claims: ClaimService;
  readonly tasks: TaskService;
  readonly listener: NotifyListener;
  /** Wakes `claim_next {wait}` callers when this process changes the board. */
  readonly board: BoardSignal;

  /** `shared`: a run's view (forRun) takes these services of the process's coordination. */
  constructor(
    private readonly store: Pick<Store, 'pool' | 'connection'>,
    options: CoordinationOptions = {},
    private readonly shared: Coordination | null = null,
  ) {
    this.listener = shared?.listener ?? new NotifyListener(store.connection);
    this.context = shared?.context ?? new ContextService(store.pool);
    this.messages = shared?.messages ?? new MessageService(store.pool, this.listener);
    this.board = shared?.board ?? new BoardSignal();
    // A board changed by another process (a person on the dashboard) wakes this one's waiters too.
    if (!shared) this.listener.onBoardChange(() => this.board.bump());
    this.claims = new ClaimService(store.pool, options);
    this.tasks = new TaskService(store.pool, this.claims.leaseMs);
  }

  /**
   * The services as a run with this claim lease uses them, in a process that hosts agents of several
   * runs (a fleet worker): claims and the task board with the run's lease and heartbeat, the rest (the
   * LISTEN connection, messages, context, board signal) this process's. This one when the timing is
   * the same. Claims are group-committed per run anyway, so a run's own services batch as before.
   */
  forRun(claimLeaseMs: number | undefined): Coordination {
    const options = runLeaseOptions(claimLeaseMs);
    const same =
      (options.leaseMs ?? DEFAULT_LEASE_MS) === this.claims.leaseMs &&
      (options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS) === this.claims.heartbeatMs;
    return same ? this : new Coordination(this.store, options, this.shared ?? this);
  }

  /**
   * The run's board changed here in a way other processes' `claim_next {wait}` callers should see at
   * once (a person added or edited tasks): wakes this process's waiters and NOTIFYs the others (best
   * effort: a missed notice only means they look at their next re-check, 5 s).
   */
  async boardChanged(runId: string): Promise<void> {
    this.board.bump();
    await this.store.pool.query('SELECT pg_notify($1, $2)', [BOARD_CHANNEL, runId]).catch(() => {});
  }

  /** Ends the LISTEN connection and wakes idle waiters (they resolve `closed`). A run's view closes nothing. */
  async close(): Promise<void> {
    if (this.shared) return;
    this.messages.close();
    await this.listener.close();
  }
}

/** Creates the services and starts listening for messages (resolves once LISTEN is up or has failed). */
export async function createCoordination(
  store: Pick<Store, 'pool' | 'connection'>,
  options: CoordinationOptions = {},
): Promise<Coordination> {
  const coord = new Coordination(store, options);
  await coord.listener.ready();
  return coord;
}
