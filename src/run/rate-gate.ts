/**
 * Backpressure on rate limits (issue 5): one gate per run, wrapped around every provider of the run,
 * so a 429 slows the whole run's request rate, not only the agent that got it. AIMD on the number of
 * model requests in flight:
 *   - unbounded until the first rate-limit signal (a `rate_limit` retry or a final `rate_limit` error);
 *   - on a rate-limit signal: limit = max(1, ⌊min(limit, in flight) / 2⌋);
 *   - after `limit` successes in a row (about one window of requests): limit + 1 (up to `max`).
 * One burst of 429s (many calls failing together) halves once: a signal from a call that began (or
 * last retried) before the latest decrease is already accounted for. A call keeps its slot while
 * the HTTP layer retries it; new calls queue (FIFO) until the in-flight count is under the limit.
 */
import type { CallOptions, ModelResult, Provider } from '../model/types.js';

export interface RateGateOptions {
  /** Highest limit the additive increase goes to (default: unbounded). */
  max?: number;
  /**
   * Called on each decrease that lowered the limit, with the new limit and the requests in flight
   * then; a rate limit at the floor of 1 changes nothing and is not reported.
   */
  onShrink?: (info: { value: number; used: number }) => void;
}

export interface RateGateStats {
  /** Current limit (null: unbounded, no rate limit seen yet). */
  limit: number | null;
  inFlight: number;
  waiting: number;
  /** Decreases that lowered the limit. */
  shrinks: number;
  /** Highest in-flight count seen at a start since the last decrease. */
  peakSinceShrink: number;
}

/** How a request held by `hold` ended, for the AIMD: a rate limit shrinks, a success counts. */
export type GateOutcome = 'ok' | 'rate_limited' | 'other';

/** One slot of the gate; `release` (once; later calls do nothing) reports the outcome and frees it. */
export interface GateSlot {
  release(outcome: GateOutcome): void;
}

const ELSEWHERE_BURST_MS = 1000;

interface Waiter {
  wake(granted: boolean): void;
}

export class RateGate {
  private limit = Number.POSITIVE_INFINITY;
  private inFlight = 0;
  private streak = 0;
  /** Bumped on every decrease; a call remembers the epoch it started (or last retried) in. */
  private epoch = 0;
  private shrinks = 0;
  private peakSinceShrink = 0;
  private readonly waiters: Waiter[] = [];
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: RateGateOptions = {}) {}

  /** The provider with every call going through this gate. */
  wrap(inner: Provider): Provider {
    return {
      model: inner.model,
      call: (request, options) => this.call(inner, request, options),
    };
  }

  /**
   * One slot for a request made outside a Provider (the model proxy forwards raw HTTP and the
   * retries are its client's): queued like a provider call, null when `signal` aborts the wait. The
   * holder keeps it until the response has ended and then releases it with the outcome.
   */
  async hold(signal?: AbortSignal): Promise<GateSlot | null> {
    if (!(await this.acquire(signal))) return null;
    const epoch = this.epoch;
    let held = true;
    return {
      release: (outcome) => {
        if (!held) return;
        held = false;
        if (outcome === 'ok') this.succeeded();
        else if (outcome === 'rate_limited') this.rateLimited(epoch);
        this.release();
      },
    };
  }

  stats(): RateGateStats {
    return {
      limit: Number.isFinite(this.limit) ? this.limit : null,
      inFlight: this.inFlight,
      waiting: this.waiters.length,
      shrinks: this.shrinks,
      peakSinceShrink: this.peakSinceShrink,
    };
  }

  private async call(
    inner: Provider,
    request: Parameters<Provider['call']>[0],
    options: CallOptions = {},
  ): Promise<ModelResult> {
    if (!(await this.acquire(options.signal))) {
      return { ok: false, error: { kind: 'aborted', message: 'the call was aborted', attempts: 0 } };
    }
    let epoch = this.epoch;
    try {
      const result = await inner.call(request, {
        ...options,
        onRetry: (info) => {
          if (info.error.kind === 'rate_limit') this.rateLimited(epoch);
          epoch = this.epoch;
          options.onRetry?.(info);
        },
      });
      if (result.ok) this.succeeded();
      else if (result.error.kind === 'rate_limit') this.rateLimited(epoch);
      return result;
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal | undefined): Promise<boolean> | boolean {
    if (signal?.aborted) return false;
    if (this.inFlight < this.limit && this.waiters.length === 0) {
      this.take();
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(false);
      };
      const waiter: Waiter = {
        wake: (granted) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(granted);
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private take(): void {
    this.inFlight++;
    if (this.inFlight > this.peakSinceShrink) this.peakSinceShrink = this.inFlight;
  }

  private release(): void {
    this.inFlight--;
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < this.limit) {
      const next = this.waiters.shift();
      if (!next) return;
      this.take();
      next.wake(true);
    }
  }

  /**
   * Another process of the run was rate limited (coord/rate-signal.ts): this gate lowers its limit
   * as its own 429 would, once per burst — within a second of its last decrease it is the same burst.
   * Not reported through `onShrink` (that process reported it).
   */
  shrinkFromElsewhere(): void {
    if (Date.now() - this.lastDecreaseAt < ELSEWHERE_BURST_MS) return;
    this.decrease();
  }

  private rateLimited(callEpoch: number): void {
    if (callEpoch < this.epoch) return; // this burst already halved the limit
    const before = this.limit;
    const used = this.decrease();
    // Log a limit change only when there was one (a 429 at the floor of 1 lowers nothing).
    if (this.limit < before) this.options.onShrink?.({ value: this.limit, used });
  }

  /**
   * Halves the limit (of the requests in flight, at least 1); returns how many were in flight. At
   * the floor the limit stays 1, but the burst still counts (epoch, streak: no increase yet).
   */
  private decrease(): number {
    const used = this.inFlight;
    const next = Math.max(1, Math.floor(Math.min(this.limit, used) / 2));
    if (next < this.limit) this.shrinks++;
    this.limit = next;
    this.epoch++;
    this.streak = 0;
    this.peakSinceShrink = 0;
    this.lastDecreaseAt = Date.now();
    return used;
  }

  private succeeded(): void {
    if (!Number.isFinite(this.limit)) return;
    if (++this.streak < this.limit) return;
    this.streak = 0;
    this.limit = Math.min(this.options.max ?? Number.POSITIVE_INFINITY, this.limit + 1);
    this.pump();
  }
}
