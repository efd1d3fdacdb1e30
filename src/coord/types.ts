/** Plain data shared by the coordination services (docs/coordination.md). */
import type { ContextKind } from '../core/events.js';

export type { ContextKind } from '../core/events.js';

/** Expected failures are data: a clear message the caller (or the model) can act on. */
export type { Result } from '../lang/result.js';

export const CONTEXT_KINDS: readonly ContextKind[] = ['OBSERVED', 'FACT', 'FAIL', 'CLAIM', 'PATCH'];

/** One agent of one run. Agent names are only unique within a run. */
export interface AgentRef {
  runId: string;
  agent: string;
}

export { USER_SENDER } from '../agent/direct-message.js';

/** The broadcast channel every agent of a run is in. */
export const ALL_CHANNEL = 'all';
