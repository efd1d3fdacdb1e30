/**
 * The `w` API as a program written by the orchestrated lead sees it: the declaration its source is
 * type-checked against (check.ts). It is the API of src/workflow/types.ts minus what cannot cross into
 * the evaluator as plain data: zod (`w.z`, `output` schemas) — ask for JSON and `JSON.parse` it.
 * test/workflow/authored-check.test.ts keeps the two in step.
 */

/** The file name the program is checked under (diagnostics name it). */
export const PROGRAM_FILE = 'program.ts';
export const DECLARATION_FILE = 'colony-workflow.d.ts';

/** The program is the body of this function: `w` is in scope, `return` gives the result. */
export const PROGRAM_HEAD = 'async function program(w: Workflow) {';
export const PROGRAM_TAIL = '}';

export const WORKFLOW_DECLARATION = `
interface AgentDefinition {
  /** explore | reviewer (read-only) or coder (writes in its own worktree, lands through the queue). */
  profile: string;
  /** Label of the step ids and agent names (default: the profile). */
  name?: string;
  /** Extra instructions appended to the profile's system prompt. */
  instructions?: string;
  /** Step cap of each attempt. */
  maxSteps?: number;
}
interface RunOptions {
  /** Per attempt, in ms. */
  timeout?: number;
  /** Extra attempts after a failed one (default 0). */
  retries?: number;
  /** Higher starts first when agent slots are scarce. */
  priority?: number;
  /** Hard limits of this step, on top of the run's budget. */
  budget?: { usd?: number; tokens?: number };
  /** Steps with the same key (within this program) run once and share the result. */
  key?: string;
}
type StepErrorKind = 'failed' | 'timeout' | 'invalid_output' | 'budget' | 'max_steps' | 'merge_rejected' | 'limit' | 'aborted';
interface StepError { kind: StepErrorKind; message: string }
type StepResult =
  | { ok: true; value: string; text: string; step: string; attempts: number }
  | { ok: false; error: StepError; step: string; attempts: number };
interface AgentHandle {
  /** One step: resolves to a result, never throws for an agent's failure. */
  run(task: string, options?: RunOptions): Promise<StepResult>;
}
type SyncPoint = 'build' | 'integration' | 'review';
interface SyncResult { point: string; command: string; passed: boolean; exitCode: number | null; output: string }
interface DagNode<T = unknown> {
  after?: string[];
  run: (inputs: Record<string, unknown>) => Promise<T>;
}
interface Workflow {
  readonly args: Readonly<Record<string, string>>;
  agent(profileOrDefinition: string | AgentDefinition): AgentHandle;
  parallel<T>(...fns: Array<() => Promise<T>>): Promise<T[]>;
  map<I, T>(items: readonly I[], fn: (item: I, index: number) => Promise<T>, options?: { concurrency?: number }): Promise<T[]>;
  stage<T>(name: string, fn: () => Promise<T>): Promise<T>;
  dag<T extends Record<string, DagNode>>(nodes: T): Promise<{ [K in keyof T]: Awaited<ReturnType<T[K]['run']>> }>;
  sync(point: SyncPoint, command: string): Promise<SyncResult>;
  dedupe<T>(items: readonly T[], key: (item: T) => string): T[];
}
`;
