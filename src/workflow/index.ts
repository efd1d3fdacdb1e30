/** Workflow programs: staged agent runs with durable replay (docs/workflows.md). */
import type { WorkflowProgram } from './types.js';

export { type EngineOptions, runWorkflow, type WorkflowOutcome } from './engine.js';
export type { AttemptOutcome, AttemptRequest, AttemptResult, CommandOutcome, WorkflowHost } from './host.js';
export type { AgentSlots, SlotResult } from './limiter.js';
export {
  type LoadedProgram,
  loadProgram,
  type ProgramSource,
  programFromSource,
  readProgramSource,
} from './load.js';
export { WorkflowDeterminismError } from './step.js';
export type * from './types.js';

/** Marks a function as a workflow program (identity; gives `w` its type when written inline). */
export function workflow<T>(program: WorkflowProgram<T>): WorkflowProgram<T> {
  return program;
}
