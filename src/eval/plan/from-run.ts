/**
 * A recorded run's task graph, from its events through the one fold (view/run-state.ts):
 *
 * - Orchestrated (the lead assigned tasks): every answered lead turn is a task (its model call, 1 step)
 *   and every assigned task one more (task.started → task.finished, its reported steps). A task
 *   depends on the turn that assigned it; a lead turn depends on the previous turn and on every task
 *   that turn assigned (assign_task returns when the task ends, so the lead waited for them).
 *   Acceptance fix tasks (leadStep 0) depend on the last turn.
 * - Otherwise (solo, peers, workflow runs in this slice): one independent task per agent, its first to
 *   last timeline bar; the log records no dependencies between them.
 *
 * Files: a task's landed merges (merge.requested by its agent while it ran, merge.landed `files`).
 */
import type { StoredEvent } from '../../core/events.js';
import { foldEvents, type RunState } from '../../view/run-state.js';
import { summarise } from '../../view/summary.js';
import type { PlanTask, TaskGraph } from './task-graph.js';

interface LandedMerge {
  agent: string;
  atMs: number;
  files: string[];
}

function landedMerges(events: readonly StoredEvent[]): LandedMerge[] {
  const requested = new Map<number, { agent: string; atMs: number }>();
  const landed: LandedMerge[] = [];
  for (const event of events) {
    if (event.kind === 'merge.requested' && event.agent)
      requested.set(event.data.mr, { agent: event.agent, atMs: Date.parse(event.ts) });
    if (event.kind === 'merge.landed') {
      const request = requested.get(event.data.mr);
      if (request) landed.push({ ...request, files: event.data.files ?? [] });
    }
  }
  return landed;
}

function filesOf(merges: readonly LandedMerge[], agent: string, fromMs: number, toMs: number): string[] {
  const files = merges
    .filter((m) => m.agent === agent && m.atMs >= fromMs && m.atMs <= toMs)
    .flatMap((m) => m.files);
  return [...new Set(files)].sort();
}

function orchestratedTasks(state: RunState, merges: readonly LandedMerge[]): PlanTask[] {
  const records = [...state.tasks.values()];
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
      files: filesOf(merges, record.agent, startMs, endMs),
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
      files: filesOf(merges, agent.name, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY),
    });
  }
  return tasks;
}

export function taskGraphOf(runId: string, events: readonly StoredEvent[]): TaskGraph {
  const state = foldEvents(events);
  const summary = summarise(runId, events);
  const merges = landedMerges(events);
  const orchestrated = state.tasks.size > 0;
  return {
    runId,
    source: orchestrated ? 'orchestrated' : 'agents',
    tasks: orchestrated ? orchestratedTasks(state, merges) : agentTasks(state, merges),
    measured: { wallClockMs: summary.wallClockMs, costUsd: summary.costUsd, agents: state.agents.size },
  };
}
