/**
 * A run's rate-limit signal across its processes (the owner and every fleet worker): a 429 anywhere
 * slows the whole run, not only the process whose call got it. Each process keeps its own gate
 * (run/rate-gate.ts); when one lowers its limit it NOTIFYs the run's other processes, which lower
 * theirs too (once per burst, see RateGate.shrinkFromElsewhere). Best effort by design: a signal
 * missed while a listener reconnects only means that process learns of the limit from its own 429.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { type NotifyListener, RATE_CHANNEL } from './listener.js';

interface RateNotice {
  /** run */
  r: string;
  /** sending process (it ignores its own signal) */
  p: string;
  /** the sender's new limit */
  v: number;
}

export interface RateSignal {
  /** Tells the run's other processes that this one was rate limited (its gate now allows `value`). */
  announce(value: number): void;
  stop(): void;
}

export function linkRateSignal(options: {
  pool: pg.Pool;
  listener: NotifyListener;
  runId: string;
  /** Called when another process of the run was rate limited. */
  onElsewhere: (value: number) => void;
}): RateSignal {
  const self = randomUUID();
  const unsubscribe = options.listener.onRateSignal((payload) => {
    let notice: RateNotice;
    try {
      notice = JSON.parse(payload) as RateNotice;
    } catch {
      return;
    }
    if (notice.r === options.runId && notice.p !== self && Number.isFinite(notice.v))
      options.onElsewhere(notice.v);
  });
  return {
    announce(value) {
      const notice: RateNotice = { r: options.runId, p: self, v: value };
      options.pool.query('SELECT pg_notify($1, $2)', [RATE_CHANNEL, JSON.stringify(notice)]).catch(() => {});
    },
    stop: unsubscribe,
  };
}
