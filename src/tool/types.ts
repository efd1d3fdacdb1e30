import type { Result } from '../lang/result.js';
import type { ToolSpec } from '../model/types.js';

/** What a tool call returns. Failures are data: `isError: true` with a message the model can read. */
export interface ToolResult {
  content: string;
  isError: boolean;
}

export interface ToolContext {
  /** Aborted when the agent is stopped; long tools (bash) must honour it. */
  signal?: AbortSignal;
  /** The model's id for this call and the step (model response) that made it. */
  callId?: string;
  step?: number;
  /**
   * Logs a file change before it is made (`tool.intent`; exactly-once file effects, agent/in-flight.ts):
   * a file tool calls it with the file's state before and after, awaits it, then writes. Absent
   * outside the agent loop (a tool run on its own writes without a record).
   */
  intend?(intent: FileIntent): Promise<void>;
}

/**
 * A file change a tool is about to make. Hashes are the sha256 (hex) of the file's bytes; null: no
 * file. `result` is the call's result once the change is made (what a resumed agent is told when
 * the change turns out to be on disk already).
 */
export interface FileIntent {
  /** Relative to the checkout, as the tool resolved it (agent/paths.ts). */
  path: string;
  beforeHash: string | null;
  afterHash: string;
  result: string;
}

/** A file's state as FileIntent hashes it (null: no file), or why it cannot be told. */
export type FileState = Result<string | null>;

/**
 * The files of the checkout a call reads or writes, relative to it (a folder stands for all it
 * holds), or the whole tree; `replaced`: files the call writes whole (what they held is not needed). A checkout filled on demand (tool/checkout-fill.ts) brings them in first.
 */
export type Touched = readonly string[] | 'all' | { replaced: readonly string[] };

/** A tool is a spec plus a function of already-parsed JSON arguments. Tools validate their own args. */
export interface Tool {
  spec: ToolSpec;
  /** True when the tool changes the worktree (write, edit, bash). */
  mutates: boolean;
  /** What a call needs of the checkout (file tools and bash); absent: nothing (coordination tools). */
  touches?(args: unknown): Touched;
  /**
   * File tools (write, edit): the state of a file at `path` (relative to the checkout) now, read
   * under the tools' path policy, for a call in flight at a crash (agent/in-flight.ts).
   */
  fileState?(path: string): Promise<FileState>;
  /**
   * A call in flight at a crash, completed from its file (it was applied, in-flight.ts): what a run of
   * the call does after it changed the checkout, done before its result is logged (a fleet worker
   * pushes the agent's work in progress: after-mutation.ts).
   */
  afterRecovered?(): Promise<void>;
  /** True when several calls of this tool in one response may run at once (e.g. assign_task). */
  parallel?: boolean;
  run(args: unknown, context: ToolContext): Promise<ToolResult>;
}

export function ok(content: string): ToolResult {
  return { content, isError: false };
}

export function fail(content: string): ToolResult {
  return { content, isError: true };
}
