/**
 * A recorded run's task graph, from its events through the one fold (view/run-state.ts):
 *
 * - Orchestrated (the lead assigned tasks): every answered lead turn is a task (its model call, 1 step)
 *   and every assigned task one more (task.started → task.finished, its reported steps). A task
 *   depends on the turn that assigned it; a lead turn depends on the previous turn and on every task
 *   that turn assigned (assign_task returns when the task ends, so the lead waited for them).
 *   Acceptance fix tasks (leadStep 0) depend on the last turn.
 * - Workflow programs (stage/step events): their steps and sync points, ordered by stages and w.dag
 *   `after` (from-workflow.ts).
 * - A task board (task.claimed events; peers with tasks_add / claim_next): its claimed tasks and their
 *   `after` (from-board.ts).
 * - Otherwise (solo, peers without a board): one independent task per agent, its first to last
 *   timeline bar; the log records no dependencies between them.
 *
 * Files: a task's landed merges (landed-merges.ts).
 */
import type { StoredEvent } from '../../core/events.js';
import { foldEvents, type RunState } from '../../view/run-state.js';
import { viewAgents } from '../../view/run-view.js';
import { summarise } from '../../view/summary.js';
import { boardTasks, hasBoard } from './from-board.js';
import { workflowTasks } from './from-workflow.js';
import { filesOf, type LandedMerge, landedMerges } from './landed-merges.js';
import { activeSpan, type GraphSource, type PlanTask, type TaskGraph } from './task-graph.js';

function orchestratedTasks(state: RunState, merges: readonly LandedMerge[]): PlanTask[] {
  const records = [...state.tasks.values()];
  const firstMs = state.firstMs ?? 0;
  const lead = records[0]?.lead ?? '';
  const lastMs = state.lastMs ?? 0;
  const turns = (state.bars.get(lead) ?? [])
    .filter((b) => b.kind === 'model' && !b.error)
    .sort((a, b) => a.step - b.step);
  const turnId = (step: number): string => `${lead}#${step}`;
  const tasks: PlanTask[] = [];
  let previous: string[] = [];
  for (const turn of turns) {
    const id = turnId(turn.step);
    tasks.push({
      id,
      agent: lead,
      durationMs: Math.max(0, turn.endMs - turn.startMs),
      steps: 1,
      deps: previous,
      files: [],
      startMs: turn.startMs - firstMs,
    });
    previous = [id, ...records.filter((r) => r.lead === lead && r.leadStep === turn.step).map((r) => r.task)];
  }
  const turnSteps = new Set(turns.map((t) => t.step));
  const lastTurn = turns[turns.length - 1];
  for (const record of records) {
    const startMs = record.startMs ?? record.assignedMs;
    const endMs = record.endMs ?? lastMs;
    const assignedBy = turnSteps.has(record.leadStep)
      ? turnId(record.leadStep)
      : lastTurn && turnId(lastTurn.step);
    tasks.push({
      id: record.task,
      agent: record.agent,
      durationMs: Math.max(0, endMs - startMs),
      steps: record.steps ?? 0,
      deps: assignedBy ? [assignedBy] : [],
      files: filesOf(merges, [record.agent], startMs, endMs),
      startMs: startMs - firstMs,
    });
  }
  return tasks;
}

function agentTasks(state: RunState, merges: readonly LandedMerge[]): PlanTask[] {
  const tasks: PlanTask[] = [];
  for (const agent of state.agents.values()) {
    const bars = state.bars.get(agent.name) ?? [];
    if (agent.steps === 0 || bars.length === 0) continue;
    const startMs = Math.min(...bars.map((b) => b.startMs));
    const endMs = Math.max(...bars.map((b) => b.endMs));
    tasks.push({
      id: agent.name,
      agent: agent.name,
      durationMs: Math.max(0, endMs - startMs),
      steps: agent.steps,
      deps: [],
      files: filesOf(merges, [agent.name]),
      startMs: startMs - (state.firstMs ?? 0),
    });
  }
  return tasks;
}

/** The team size the run had (Measured.teamSize). */
function teamSizeOf(state: RunState, source: GraphSource, tasks: readonly PlanTask[]): number {
  const working = [...state.agents.values()].filter((a) => a.steps > 0).length;
  if (source === 'orchestrated')
    return Math.max(1, new Set([...state.tasks.values()].map((t) => t.agent)).size);
  if (source === 'workflow') {
    const concurrency = state.config.concurrency;
    const limit = typeof concurrency === 'number' && concurrency > 0 ? concurrency : 64;
    return Math.max(1, Math.min(limit, tasks.length));
  }
  if (state.topology === 'solo') return 1;
  return Math.max(1, state.plannedAgents.length, working);
}

export function taskGraphOf(runId: string, events: readonly StoredEvent[]): TaskGraph {
  const state = foldEvents(events);
  const summary = summarise(runId, events);
  const merges = landedMerges(events);
  const source: GraphSource =
    state.tasks.size > 0
      ? 'orchestrated'
      : state.workflow.steps.size > 0 || events.some((e) => e.kind === 'sync.finished')
        ? 'workflow'
        : hasBoard(events)
          ? 'board'
          : 'agents';
  const tasks =
    source === 'orchestrated'
      ? orchestratedTasks(state, merges)
      : source === 'workflow'
        ? workflowTasks(events, state, merges)
        : source === 'board'
          ? boardTasks(events, state, merges)
          : agentTasks(state, merges);
  return {
    runId,
    source,
    tasks,
    goal: state.goal,
    measured: {
      wallClockMs: summary.wallClockMs,
      costUsd: summary.costUsd,
      // The run's agents as every view shows them: a sender such as the integration queue is not one.
      agents: viewAgents(state, state.lastMs).length,
      teamSize: teamSizeOf(state, source, tasks),
      activeMs: activeSpan(tasks),
    },
  };
}
