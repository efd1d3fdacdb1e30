/**
 * What the workflow engine needs from the run that hosts it: the log, the run's stop signal, agent
 * slots, a way to run one agent (its tools, worktree and landing are the host's business) and a way to
 * run a command on hub main. src/topology/workflow.ts provides the real one.
 */
import type { EventKind, EventPayloads } from '../core/events.js';
import type { EventLog } from '../store/types.js';
import type { AgentSlots } from './limiter.js';

export interface AttemptRequest {
  /** Unique agent name of this attempt (its events, worktree and branch are named after it). */
  agent: string;
  profile: string;
  instructions?: string;
  task: string;
  maxSteps: number;
  /** Stops this attempt (its time-out or the run stopping). */
  signal: AbortSignal;
  budget?: { usd?: number; tokens?: number };
}

export interface AttemptOutcome {
  status: 'done' | 'failed' | 'stopped';
  /** answered | max_steps | budget_usd | budget_tokens | aborted | model_error | … (agent.finished). */
  stopReason: string;
  reason: string;
  steps: number;
  finalText: string;
  /** Writers only: what the integration queue did with the agent's work. */
  merge?: { status: 'landed' | 'rejected' | 'nothing_to_merge' | 'error'; detail: string };
}

export type AttemptResult = { ok: true; outcome: AttemptOutcome } | { ok: false; error: string };

export interface CommandOutcome {
  exitCode: number | null;
  output: string;
  durationMs: number;
}

export interface WorkflowHost {
  runId: string;
  log: EventLog;
  signal: AbortSignal;
  slots: AgentSlots;
  defaultMaxSteps: number;
  runAttempt(request: AttemptRequest): Promise<AttemptResult>;
  /** Runs a command in a clean checkout of hub main. */
  runOnMain(command: string): Promise<CommandOutcome>;
  /** Removes secret values from data before it is logged (step results, the program's result). */
  scrub<T>(value: T): T;
}

export type Emit = <K extends EventKind>(
  kind: K,
  data: EventPayloads[K],
  agent?: string | null,
) => Promise<unknown>;
