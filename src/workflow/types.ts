/**
 * The public types of workflow programs: a program is an async function of `w` (the Workflow) that
 * runs agents in stages and merges their results. Workflow files import only these types; the
 * runtime passes `w` in (see docs/workflows.md).
 */
import type { z } from 'zod';

/** An agent definition: a profile (its tools) plus an optional name and extra instructions. */
export interface AgentDefinition {
  /** explore | reviewer (read-only) or coder (writes in its own worktree, lands through the queue). */
  profile: string;
  /** Label used in step ids and agent names (default: the profile). */
  name?: string;
  /** Extra instructions appended to the profile's system prompt. */
  instructions?: string;
  /** Step cap of each attempt (default: the run's --max-steps). */
  maxSteps?: number;
}

export interface RunOptions<S extends z.ZodType | undefined = undefined> {
  /** The answer must be JSON valid against this schema; one repair attempt tells the agent what was wrong. */
  output?: S;
  /** Per attempt, in ms: the attempt is stopped and counts as failed (`timeout`). */
  timeout?: number;
  /** Extra attempts after a failed one (default 0), with exponential back-off and jitter. */
  retries?: number;
  /** Higher starts first when agent slots are scarce (default 0). */
  priority?: number;
  /** Hard limits of this step (on top of the run's budget). */
  budget?: { usd?: number; tokens?: number };
  /**
   * Run-wide de-duplication: steps with the same key run once and share the result. The key also
   * names the step (its durable id), so it must come from data, never from time or randomness.
   */
  key?: string;
}

export type StepErrorKind =
  | 'failed'
  | 'timeout'
  | 'invalid_output'
  | 'budget'
  | 'max_steps'
  | 'merge_rejected'
  | 'limit'
  | 'aborted';

export interface StepError {
  kind: StepErrorKind;
  message: string;
}

export type StepResult<T> =
  | {
      ok: true;
      /** The validated output (with `output`), else the agent's final text. */
      value: T;
      /** The agent's final text. */
      text: string;
      step: string;
      attempts: number;
    }
  | { ok: false; error: StepError; step: string; attempts: number };

export interface AgentHandle {
  run<S extends z.ZodType>(
    task: string,
    options: RunOptions<S> & { output: S },
  ): Promise<StepResult<z.infer<S>>>;
  run(task: string, options?: RunOptions): Promise<StepResult<string>>;
}

export type SyncPoint = 'build' | 'integration' | 'review';

export interface SyncResult {
  point: string;
  command: string;
  passed: boolean;
  exitCode: number | null;
  output: string;
}

export interface DagNode<T = unknown> {
  /** Names of the nodes this one waits for. */
  after?: string[];
  /** Runs once every predecessor finished; gets their results by name. */
  run: (inputs: Record<string, unknown>) => Promise<T>;
}

export interface Workflow {
  /** `--arg k=v` values of `colony workflow`. */
  readonly args: Readonly<Record<string, string>>;
  /** zod, so workflow files need no runtime imports. */
  readonly z: typeof z;
  agent(profileOrDefinition: string | AgentDefinition): AgentHandle;
  /** Runs the functions at once (each in its own call-path scope) and returns their results in order. */
  parallel<T>(...fns: Array<() => Promise<T>>): Promise<T[]>;
  /** `fn` for every item, at most `concurrency` at once (default: all), results in item order. */
  map<I, T>(
    items: readonly I[],
    fn: (item: I, index: number) => Promise<T>,
    options?: { concurrency?: number },
  ): Promise<T[]>;
  /** A named stage: its steps are grouped (events, metrics) under the stage's id. */
  stage<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** A dependency graph: a node starts when its predecessors finished; every node is a stage. */
  dag<T extends Record<string, DagNode>>(
    nodes: T,
  ): Promise<{ [K in keyof T]: Awaited<ReturnType<T[K]['run']>> }>;
  /** A synchronisation point: runs `command` on a clean checkout of hub main (what has landed so far). */
  sync(point: SyncPoint, command: string): Promise<SyncResult>;
  /** Keeps the first item of every key (order preserved). Pure: use it to merge results. */
  dedupe<T>(items: readonly T[], key: (item: T) => string): T[];
}

/** What a workflow file default-exports. */
export type WorkflowProgram<T = unknown> = (w: Workflow) => Promise<T>;
