/**
 * The run scheduler (all topologies): at most `concurrency` agents work at once; waiting starts go by
 * priority (higher first), then rank (a workflow DAG step's remaining critical path, higher first),
 * FIFO within both; one named agent may start at most
 * `maxStartsPerAgent` times and a run may have at most `maxAgents` distinct agents. A start over a
 * limit is refused as data (`{ ok: false, error }`) without running, and logged as `limit.hit`.
 * Start counts are reserved when `run` is called (not when a slot frees up), so a refused start never
 * waits for a slot first. Pass `previousStarts` on resume so the counts survive a restart.
 *
 * `hold()` defers every grant until the hold ends: slots freed and starts asked for meanwhile wait,
 * then the best waiters get the free slots at once. The workflow engine holds while a finished step's
 * consequences are logged, so the steps it made ready compete for its slot (critical-path-first).
 */
import type { EventLog } from '../store/types.js';
import { LIMIT_NAMES, type SchedulerLimits } from './scheduler/limits.js';
import { PriorityQueue } from './scheduler/priority-queue.js';

export { DEFAULT_LIMITS, LIMIT_NAMES, resolveLimits, type SchedulerLimits } from './scheduler/limits.js';

export type SchedulerError = {
  kind: 'thread_limit_error' | 'agent_limit_error' | 'aborted';
  message: string;
  limit?: string;
  value?: number;
};

export type ScheduleResult<T> = { ok: true; value: T } | { ok: false; error: SchedulerError };

export interface SchedulerOptions {
  runId: string;
  log: EventLog;
  limits: SchedulerLimits;
  signal?: AbortSignal;
  /** Starts per agent already made by this run before a resume (e.g. counted from its events). */
  previousStarts?: Readonly<Record<string, number>>;
}

export interface SchedulerStats {
  running: number;
  queued: number;
  /** Starts granted by this scheduler (not counting `previousStarts`). */
  started: number;
  /** Starts refused (over a limit or aborted). */
  refused: number;
  /** Distinct agents seen (including `previousStarts`). */
  agents: number;
}

type Waiter = (granted: boolean) => void;

export class Scheduler {
  private readonly starts = new Map<string, number>();
  private readonly queue = new PriorityQueue<Waiter>();
  private running = 0;
  private holds = 0;
  private started = 0;
  private refused = 0;
  private concurrencyLogged = false;

  constructor(private readonly options: SchedulerOptions) {
    for (const [agent, count] of Object.entries(options.previousStarts ?? {})) this.starts.set(agent, count);
    options.signal?.addEventListener('abort', () => {
      for (const waiter of this.queue.drain()) waiter(false);
    });
  }

  get limits(): SchedulerLimits {
    return this.options.limits;
  }

  /** How often `agent` has started in this run so far. */
  startsOf(agent: string): number {
    return this.starts.get(agent) ?? 0;
  }

  /**
   * Waits for a slot, counts a start of `agent`, runs `fn`. Errors thrown by `fn` propagate. `fn` may
   * call `release()` to hand its slot over before it returns (e.g. once an agent has answered and only
   * commits its last events); the slot is released once, at the latest when `fn` settles.
   */
  async run<T>(
    agent: string,
    fn: (release: () => void) => Promise<T>,
    options: { priority?: number; rank?: number } = {},
  ): Promise<ScheduleResult<T>> {
    if (this.options.signal?.aborted) return this.refuse(abortedError());
    const { limits } = this.options;
    const used = this.starts.get(agent);
    if (used === undefined && this.starts.size >= limits.maxAgents) {
      return this.refuseOverLimit(agent, {
        kind: 'agent_limit_error',
        message: `cannot start agent "${agent}": the run already has ${this.starts.size} agents (limit ${limits.maxAgents})`,
        limit: LIMIT_NAMES.maxAgents,
        value: limits.maxAgents,
        used: this.starts.size,
      });
    }
    if ((used ?? 0) >= limits.maxStartsPerAgent) {
      return this.refuseOverLimit(agent, {
        kind: 'thread_limit_error',
        message: `cannot start agent "${agent}" again: it was started ${used} times in this run (limit ${limits.maxStartsPerAgent})`,
        limit: LIMIT_NAMES.maxStartsPerAgent,
        value: limits.maxStartsPerAgent,
        used: used ?? 0,
      });
    }
    this.starts.set(agent, (used ?? 0) + 1);

    if (!(await this.acquire(options.priority ?? 0, options.rank ?? 0))) {
      // Aborted while queued: the reserved start was never made.
      this.starts.set(agent, (this.starts.get(agent) ?? 1) - 1);
      return this.refuse(abortedError());
    }
    this.started++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.release();
    };
    try {
      return { ok: true, value: await fn(release) };
    } finally {
      release();
    }
  }

  /** Defers grants until the returned function is called (once; holds nest). */
  hold(): () => void {
    this.holds++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holds--;
      if (this.holds === 0) this.dispatch();
    };
  }

  stats(): SchedulerStats {
    return {
      running: this.running,
      queued: this.queue.size,
      started: this.started,
      refused: this.refused,
      agents: this.starts.size,
    };
  }

  private acquire(priority: number, rank: number): boolean | Promise<boolean> {
    const free = this.running < this.options.limits.concurrency;
    if (free && this.holds === 0) {
      this.running++;
      return true;
    }
    // Queued first (keeps FIFO order), then the release hands its slot over (see release()).
    const granted = new Promise<boolean>((resolve) => this.queue.push(resolve, priority, rank));
    if (!free && !this.concurrencyLogged) {
      // Queueing is normal for a wide graph: logged once per run, not once per queued start. Not
      // awaited: this start must not wait for the commit (it would start after later queued ones,
      // breaking FIFO, when its slot frees up first); a failing log fails the agents' own appends.
      this.concurrencyLogged = true;
      this.logHit(null, LIMIT_NAMES.concurrency, this.options.limits.concurrency, this.running).catch(
        () => {},
      );
    }
    return granted;
  }

  private release(): void {
    this.running--;
    if (this.holds === 0) this.dispatch();
  }

  /** Free slots to the best waiters. */
  private dispatch(): void {
    while (this.running < this.options.limits.concurrency) {
      const next = this.queue.pop();
      if (!next) return;
      this.running++;
      next(true);
    }
  }

  private async refuseOverLimit(
    agent: string,
    hit: SchedulerError & { limit: string; value: number; used: number },
  ): Promise<ScheduleResult<never>> {
    await this.logHit(agent, hit.limit, hit.value, hit.used);
    return this.refuse({ kind: hit.kind, message: hit.message, limit: hit.limit, value: hit.value });
  }

  private refuse(error: SchedulerError): ScheduleResult<never> {
    this.refused++;
    return { ok: false, error };
  }

  private async logHit(agent: string | null, limit: string, value: number, used: number): Promise<void> {
    await this.options.log.append({
      runId: this.options.runId,
      agent,
      kind: 'limit.hit',
      data: { limit, value, used },
    });
  }
}

function abortedError(): SchedulerError {
  return { kind: 'aborted', message: 'the run was stopped before this start got a slot' };
}
