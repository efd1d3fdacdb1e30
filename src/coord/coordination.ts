/**
 * The coordination services of one store: shared context, messages (with the process's LISTEN
 * connection), claims and the task board on them. Create one per process; close it before closing the store.
 */
import type { Store } from '../store/index.js';
import { BoardSignal } from './board-signal.js';
import { ClaimService } from './claims.js';
import { ContextService } from './context.js';
import { NotifyListener } from './listener.js';
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
  readonly board = new BoardSignal();

  constructor(store: Pick<Store, 'pool' | 'connection'>, options: CoordinationOptions = {}) {
    this.listener = new NotifyListener(store.connection);
    this.context = new ContextService(store.pool);
    this.messages = new MessageService(store.pool, this.listener);
    this.claims = new ClaimService(store.pool, options);
    this.tasks = new TaskService(store.pool, this.claims.leaseMs);
  }

  /** Ends the LISTEN connection and wakes idle waiters (they resolve `closed`). */
  async close(): Promise<void> {
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
