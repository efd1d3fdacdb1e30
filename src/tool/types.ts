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
}

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
