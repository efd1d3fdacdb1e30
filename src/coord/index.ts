/** Coordination: shared context, messages, claims, the task board (docs/coordination.md). */

export { formatDirectMessage } from '../agent/direct-message.js';
export { AgentCoordination } from './agent-coordination.js';
export {
  type ClaimConflict,
  type ClaimGranted,
  type ClaimInput,
  type ClaimOutcome,
  ClaimService,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_LEASE_MS,
  type Heartbeat,
  type HeldClaim,
  MAX_NEARBY,
  type ReleaseInput,
} from './claims.js';
export {
  type ContextEntry,
  type ContextGist,
  ContextService,
  DEFAULT_READ_LIMIT,
  MAX_SUMMARY_CHARS,
  type PostInput,
  type ReadOptions,
  type ReadResult,
} from './context.js';
export {
  Coordination,
  type CoordinationOptions,
  createCoordination,
  runLeaseOptions,
} from './coordination.js';
export { checkGrantHistory, type GrantHistory, type GrantViolation } from './grant-history.js';
export { describeGrep, type GrepQuery, matchesGrep, parseGrep } from './grep.js';
export { directMessageInjector } from './injector.js';
export { NotifyListener } from './listener.js';
export {
  type CoordMessage,
  type Delivery,
  type MessageReadResult,
  MessageService,
  type SendInput,
  type WaitOutcome,
} from './messages.js';
export { isDoneOutcome } from './outcome.js';
export { coordinationPrompt } from './prompt.js';
export { parseScope, type Scope, scopeCovers, scopesOverlap } from './scope.js';
export { MAX_TASKS_PER_ADD, MAX_TITLE_CHARS, type TaskInput } from './task-input.js';
export type { BoardTask, TaskCounts } from './task-queries.js';
export { type AddedTask, type ClaimNextOutcome, DEFAULT_READY_LIMIT, TaskService } from './tasks.js';
export { createContextReadTool } from './tools/context-read.js';
export { createContextUnfoldTool } from './tools/context-unfold.js';
export {
  CAPABILITY_TOOLS,
  CHANNEL_READING_TOOLS,
  COORDINATION_TOOL_NAMES,
  type CoordinationToolName,
  createCoordinationTools,
  holdsClaims,
} from './tools/index.js';
export {
  type AgentRef,
  ALL_CHANNEL,
  CONTEXT_KINDS,
  type ContextKind,
  type Result,
  USER_SENDER,
} from './types.js';
