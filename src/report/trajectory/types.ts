/**
 * The records of `colony export RUN --format trajectory` (docs/trajectory.md, field by field): one
 * `decision` line per model response of the lead, then one `episode` line with the rewards. Plain
 * JSON; the version goes up when a field's meaning changes.
 */
import type { Message, ModelTurn } from '../../model/types.js';

export const TRAJECTORY_VERSION = 1;

/** What the lead's model was sent for one decision, rebuilt from the log (request-messages.ts). */
export interface LeadRequest {
  system: string;
  /** The lead's tool names as its `agent.started` logged them. */
  tools: string[];
  messages: Message[];
}

/** One tool call of the decision and its logged result (null: no `tool.finished`, e.g. a crash). */
export interface DecisionCall {
  callId: string;
  name: string;
  /** The arguments parsed as JSON; the raw text when they are not JSON. */
  arguments: unknown;
  result: { isError: boolean; content: string } | null;
}

/** A subagent task the decision started (`assign_task`), as `task.finished` ended it. */
export interface DecisionTask {
  task: string;
  agent: string;
  prompt: string;
  callId: string;
  /** `done`, `failed`, `stopped`, `refused`; null when it never finished (the run ended first). */
  status: string | null;
  /** The subagent's model responses in this task; null when it never finished. */
  steps: number | null;
  /** What the lead read back (null when it never finished). */
  result: string | null;
}

/** One agent step of a program the decision ran (`run_workflow`). */
export interface DecisionProgramStep {
  step: string;
  label: string;
  profile: string;
  /** The attempts' agents (an attempt and its repair agent each). */
  agents: string[];
  /** Model responses of those agents. */
  steps: number;
  /** null: the step never finished. */
  ok: boolean | null;
  attempts: number | null;
}

export interface DecisionProgram {
  /** `wf<lead step>-<call id>`: every step id of the program starts with it. */
  program: string;
  callId: string;
  /** `workflow.finished`'s ok; null when no program of that id finished (e.g. it did not type-check). */
  ok: boolean | null;
  steps: DecisionProgramStep[];
}

export interface DecisionRecord {
  v: typeof TRAJECTORY_VERSION;
  type: 'decision';
  runId: string;
  /** 0, 1, …: the lead's decisions in log order. */
  index: number;
  lead: string;
  /** The lead's model response number (`model.response.step`). */
  leadStep: number;
  /** The `model.response` event's sequence number and time. */
  seq: number;
  ts: string;
  request: LeadRequest;
  response: ModelTurn;
  latencyMs: number;
  calls: DecisionCall[];
  /** Subagents this decision created (`subagent.created`). */
  created: Array<{ name: string; profile: string; model: string; maxSteps: number }>;
  /** What ran as a result: the tasks (in call order; run together, bounded by the scheduler) and the programs. */
  parallel: {
    tasks: DecisionTask[];
    programs: DecisionProgram[];
    /** Distinct subagents among `tasks`: a subagent's own tasks run one after another. */
    agents: number;
  };
  /**
   * The decision's share of CriticalSteps (view/critical-path.ts): 1 + its longest task's steps +
   * the stage paths of its programs.
   */
  criticalSteps: number;
  /** Model responses the decision accounts for: 1 (its own) + its tasks' steps + its programs' steps. */
  steps: number;
}

/** Where r_perf came from. */
export type PerfSource = 'eval' | 'acceptance' | 'verify';

export interface EpisodeRecord {
  v: typeof TRAJECTORY_VERSION;
  type: 'episode';
  runId: string;
  topology: string | null;
  status: string;
  goal: string | null;
  /** null: no lead (solo, peers, a workflow run): no decisions. */
  lead: string | null;
  decisions: number;
  criticalSteps: number;
  totalSteps: number;
  /** The delegations r_finish counts, and how many finished. */
  delegation: Delegation;
  rewards: {
    rParallel: number;
    /** null: the lead delegated nothing. */
    rFinish: number | null;
    /** null: the run has no verify, acceptance or eval score. */
    rPerf: number | null;
  };
  rPerfSource: PerfSource | null;
}

export type TrajectoryRecord = DecisionRecord | EpisodeRecord;

/** What the lead's decisions delegated, and how much of it finished (r_finish's counts). */
export interface Delegation {
  subagentsCreated: number;
  /** Created by the lead and never given a task. */
  subagentsAbandoned: number;
  /** Tasks the lead's decisions assigned (acceptance fix tasks, lead step 0, are not decisions). */
  tasksAssigned: number;
  tasksDone: number;
  programSteps: number;
  programStepsOk: number;
}
