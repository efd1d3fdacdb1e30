/**
 * Why a run ends early, decided in one place: Ctrl-C (the parent signal), `colony stop` (a
 * `run.stop_requested` event, read by polling the log), the run's deadline (an absolute time kept in
 * the spec, so a resumed run keeps it), or the topology itself (peers: the goal is met). The first
 * cause wins; every agent sees one abort signal.
 */
import { setMaxListeners } from 'node:events';
import type { FinalRunStatus } from '../core/events.js';
import type { EventLog } from '../store/types.js';

export interface EndCause {
  status: FinalRunStatus;
  reason: string;
}

const STOP_POLL_MS = 500;

export class RunControl {
  private readonly controller = new AbortController();
  private endCause: EndCause | null = null;
  private disposed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly onParentAbort = () => this.end({ status: 'stopped', reason: 'stopped by request' });

  constructor(
    private readonly parent: AbortSignal,
    options: { deadlineAt?: string; log?: EventLog; runId?: string; stopPollMs?: number } = {},
  ) {
    // Every agent of the run (up to thousands) listens to this one signal.
    setMaxListeners(0, this.controller.signal);
    if (parent.aborted) this.onParentAbort();
    else parent.addEventListener('abort', this.onParentAbort, { once: true });
    if (options.deadlineAt) this.armDeadline(options.deadlineAt);
    if (options.log && options.runId) this.watchStopRequests(options.log, options.runId, options.stopPollMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The cause that ended the run early, or null while it runs on. */
  get cause(): EndCause | null {
    return this.endCause;
  }

  end(cause: EndCause): void {
    if (this.endCause) return;
    this.endCause = cause;
    this.controller.abort(cause);
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.parent.removeEventListener('abort', this.onParentAbort);
  }

  private armDeadline(deadlineAt: string): void {
    const at = Date.parse(deadlineAt);
    if (!Number.isFinite(at)) return;
    const fire = () => {
      const left = at - Date.now();
      // setTimeout caps at ~24.8 days; re-arm until the deadline is really due.
      if (left > 0) this.timers.push(setTimeout(fire, Math.min(left, 2 ** 31 - 1)).unref());
      else this.end({ status: 'deadline_exceeded', reason: deadlineReason(at) });
    };
    fire();
  }

  private watchStopRequests(log: EventLog, runId: string, pollMs = STOP_POLL_MS): void {
    const poll = async () => {
      if (this.endCause || this.disposed) return;
      try {
        const [request] = await log.read(runId, {
          kinds: ['run.stop_requested'],
          limit: 1,
        });
        if (request) {
          const why = request.data.reason ? `: ${request.data.reason}` : '';
          this.end({ status: 'stopped', reason: `stopped by ${request.data.by}${why}` });
          return;
        }
      } catch {
        // The store is closing or briefly unreachable; the next poll tries again.
      }
      if (!this.disposed) this.timers.push(setTimeout(poll, pollMs).unref());
    };
    void poll();
  }
}

/** The deadline in words a person reads (a clock time, not an ISO timestamp): set by --deadline. */
export function deadlineReason(atMs: number): string {
  const iso = new Date(atMs).toISOString();
  return `its deadline passed (--deadline: it could run until ${iso.slice(11, 19)} UTC on ${iso.slice(0, 10)})`;
}
