export { type ApproveResult, approveFromOutside, rejectFromOutside } from './approval.js';
export { type IntegrationLock, type LockPurpose, localIntegrationLock, pgIntegrationLock } from './lock.js';
export {
  MAX_DIFF_CHARS,
  type MrDiff,
  type MrDiffFile,
  type MrDiffResult,
  mergeRequestDiff,
} from './mr-diff.js';
export { type EnqueueResult, IntegrationQueue } from './queue.js';
export {
  type LandedItem,
  landedSinceLastSync,
  type SyncOptions,
  type SyncResult,
  syncWorktree,
} from './sync.js';
export { createMergeRequestTool, createSyncTool, type IntegrationToolContext } from './tools.js';
export type {
  ContextEntryInput,
  IntegrationHooks,
  IntegrationQueueOptions,
  IntegrationStats,
  MergeRequestInput,
  MergeRequestReply,
  MergeRequestResult,
  RejectReason,
} from './types.js';
