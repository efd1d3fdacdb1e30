/**
 * The task graph `colony plan` reasons about: tasks with a duration (wall ms), their model steps, the
 * tasks each one waited for, and the files it changed (for the conflict penalty). Plain data.
 */
export interface PlanTask {
  id: string;
  /** Who ran it in the recorded run (the lead, a subagent, a peer, a step's agent); '' from a file. */
  agent: string;
  durationMs: number;
  /** Model responses in this task. */
  steps: number;
  /** Ids of the tasks that had to finish before this one could start. */
  deps: string[];
  /** Paths its landed merges changed (merge.landed files); empty when none were recorded. */
  files: string[];
  /** When it started in the recorded run (ms since the run's first event); absent from a file. */
  startMs?: number;
}

/**
 * Where the graph came from: orchestrated (lead turns and assigned tasks), workflow (a workflow
 * program's steps and stages), board (a peers run's task board), agents (one independent task per
 * agent: runs whose log records no dependencies), file (`--tasks FILE`, before any run).
 */
export type GraphSource = 'orchestrated' | 'workflow' | 'board' | 'agents' | 'file';

export interface Measured {
  /** The run's first to last event; null for a task file. */
  wallClockMs: number | null;
  /** The run's cost (a task file: the sum of its tasks' costUsd when every task has one). */
  costUsd: number | null;
  /** Agents that appeared in the log. */
  agents: number;
  /**
   * The team size the run had, the p `--check` predicts at: solo 1; peers the configured peers;
   * orchestrated the subagents (the lead waits while they work); workflow the scheduler's concurrency,
   * at most the number of steps; a task file 1.
   */
  teamSize: number;
  /** First task start to last task end in the recorded run; null when the tasks have no start. */
  activeMs: number | null;
}

export interface TaskGraph {
  runId: string;
  source: GraphSource;
  tasks: PlanTask[];
  /** The recorded run's wall-clock and cost, for comparison and the cost model. */
  measured: Measured;
  /** The run's goal (null for a file), so `--check --from` can say whether two runs share one. */
  goal: string | null;
}

/** First task start to last task end, from the tasks' recorded starts (null when any is missing). */
export function activeSpan(tasks: readonly PlanTask[]): number | null {
  if (tasks.length === 0 || tasks.some((t) => t.startMs === undefined)) return null;
  const starts = tasks.map((t) => t.startMs ?? 0);
  const ends = tasks.map((t) => (t.startMs ?? 0) + t.durationMs);
  return Math.max(...ends) - Math.min(...starts);
}
