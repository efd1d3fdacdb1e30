/**
 * The task graph `colony plan` reasons about: tasks with a duration (wall ms), their model steps, the
 * tasks each one waited for, and the files it changed (for the conflict penalty). Plain data.
 */
export interface PlanTask {
  id: string;
  /** Who ran it in the recorded run (the lead, a subagent, a peer). */
  agent: string;
  durationMs: number;
  /** Model responses in this task. */
  steps: number;
  /** Ids of the tasks that had to finish before this one could start. */
  deps: string[];
  /** Paths its landed merges changed (merge.landed files); empty when none were recorded. */
  files: string[];
}

export type GraphSource = 'orchestrated' | 'agents';

export interface TaskGraph {
  runId: string;
  /** orchestrated: lead turns and the tasks they assigned; agents: one independent task per agent. */
  source: GraphSource;
  tasks: PlanTask[];
  /** The recorded run's wall-clock and cost, for comparison and the cost model. */
  measured: { wallClockMs: number; costUsd: number | null; agents: number };
}
