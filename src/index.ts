/**
 * Colony as a library (`import { … } from 'colony'`): run a topology, open the store, and read a
 * run back as its summary or its view. Everything else is internal and may change.
 */

export type { EventKind, EventPayloads, RunStatus, StoredEvent, UsageTotals } from './core/events.js';
// Running: a RunSpec-like options object in, the finished run's summary out.
export { type RunOptions, type RunOutcome, runTopology } from './library/run.js';
export type { RunSpec } from './run/run-spec.js';
// The store: the event log and the runs table (embedded Postgres under COLONY_HOME, or COLONY_DATABASE_URL).
export {
  type EventLog,
  type OpenResult,
  openStore,
  type RunRecord,
  type RunStore,
  resolveHome,
  type Store,
  type StoreOptions,
  tryOpenStore,
} from './store/index.js';
export { applyEvent, emptyRunState, type RunState } from './view/run-state.js';
export { buildRunView, toRunView } from './view/run-view.js';
// Reading a run: its events folded into a summary (what `colony show` prints) or a view (what the
// dashboard draws).
export { type RunSummary, summarise, type TokenAccount } from './view/summary.js';
export type {
  AgentState,
  AgentView,
  CriticalPath,
  MergeView,
  RunTotals,
  RunView,
  TimelineBar,
  TimelineLane,
} from './view/types.js';
