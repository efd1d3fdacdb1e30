export { embeddedPaths } from './embedded-paths.js';
export { type EventLogStats, PgEventLog } from './event-log.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
export { openStoreWaiting, type WaitingOpenOptions } from './open-waiting.js';
export { prepared } from './prepared.js';
export { type RunLockResult, tryLockRun } from './run-lock.js';
export { heldRunLocks } from './run-lock-holders.js';
export { type RunSilence, runSilences } from './run-silence.js';
export { createRunStore, type NewRun, type RunRecord, type RunResult, type RunStore } from './runs.js';
export {
  type OpenResult,
  openStore,
  resolveHome,
  type Store,
  type StoreOptions,
  tryOpenStore,
} from './store.js';
export type { ChainBreak, EventLog, RunRow, VerifyResult } from './types.js';
