export {
  DEFAULT_RECOVERY_POLICY,
  type RecoveryDecision,
  type RecoveryPolicy,
  type RunningRunFacts,
  recoveryDecision,
} from './recovery-decision.js';
export { DEFAULT_SCAN_MS, RunSupervisor, type SupervisorOptions } from './supervisor.js';
