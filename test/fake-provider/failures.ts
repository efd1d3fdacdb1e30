/** Failures the fake provider can inject, by request index or by path. */
import type { EndlessBody } from './endless.js';

export type { EndlessBody } from './endless.js';

export type Failure =
  /** Answer with this HTTP status (an error body in the protocol's format). */
  | {
      status: number;
      retryAfterS?: number;
      retryAfterMs?: number;
      retryAfterAsDate?: boolean;
      message?: string;
    }
  /** Answer normally, but only after this extra delay. */
  | { delayMs: number }
  /** 200 with a body that is not valid for the protocol (non-JSON, or a broken stream). */
  | { malformed: true }
  /** Close the connection without answering (a network error for the client). */
  | { drop: true }
  /**
   * Answer normally, but close the connection after the first `cutAfterFrames` frames of a streamed
   * answer (a whole one: after half its body): an answer that breaks off.
   */
  | { cutAfterFrames: number }
  /**
   * 200 with a body that never ends (see endless.ts): as fast as the client reads, or one piece per
   * `intervalMs`. The answer the policy would give is never computed.
   */
  | { endless: EndlessBody; intervalMs?: number };

export interface FailureContext {
  /** 0-based index among model requests since the plan was set. */
  index: number;
  path: string;
  /** 0-based index among requests to this path since the plan was set. */
  pathIndex: number;
}

export type FailurePlan =
  | {
      /** By request index; null/undefined entries answer normally. */
      sequence?: Array<Failure | null | undefined>;
      /** By path (e.g. `/v1/messages`), indexed per path. */
      byPath?: Record<string, Array<Failure | null | undefined>>;
    }
  | ((ctx: FailureContext) => Failure | null | undefined);

export function pickFailure(plan: FailurePlan | undefined, ctx: FailureContext): Failure | undefined {
  if (!plan) return undefined;
  if (typeof plan === 'function') return plan(ctx) ?? undefined;
  return plan.sequence?.[ctx.index] ?? plan.byPath?.[ctx.path]?.[ctx.pathIndex] ?? undefined;
}
