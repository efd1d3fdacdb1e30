/**
 * A peers run's task board as a DAG: every board task that was claimed is a task (`#<id>`), waiting
 * for its `after` tasks (task.added). Its duration is the time its claims were held (task.claimed →
 * task.done or task.reopened; a reopened task's lost attempts count, the work was spent), its agent
 * the last claimant, its files what the claimants landed while holding it. Tasks never claimed are
 * left out (nothing waited on them: a task is ready only when its predecessors are done).
 *
 * Each agent's time before its first claim (reading, planning, `tasks_add`) is one more task,
 * `<agent>:before`; the board tasks it added in that time wait for it. Time between claims
 * (syncing, waiting for the board) is not a task: it is part of the run's overhead (check.ts).
 */
import type { StoredEvent } from '../../core/events.js';
import type { RunState } from '../../view/run-state.js';
import { filesOf, type LandedMerge } from './landed-merges.js';
import type { PlanTask } from './task-graph.js';

interface BoardTask {
  id: number;
  adder: string | null;
  addedMs: number;
  after: number[];
  claims: Array<{ claimId: number; agent: string; fromMs: number; toMs: number | null }>;
}

function boardOf(events: readonly StoredEvent[]): Map<number, BoardTask> {
  const board = new Map<number, BoardTask>();
  for (const event of events) {
    const atMs = Date.parse(event.ts);
    if (event.kind === 'task.added') {
      const d = event.data;
      board.set(d.id, { id: d.id, adder: event.agent, addedMs: atMs, after: d.after, claims: [] });
    } else if (event.kind === 'task.claimed' && event.agent) {
      board.get(event.data.id)?.claims.push({
        claimId: event.data.claimId,
        agent: event.agent,
        fromMs: atMs,
        toMs: null,
      });
    } else if (event.kind === 'task.done' || event.kind === 'task.reopened') {
      const claim = board.get(event.data.id)?.claims.find((c) => c.claimId === event.data.claimId);
      if (claim && claim.toMs === null) claim.toMs = atMs;
    }
  }
  return board;
}

export function hasBoard(events: readonly StoredEvent[]): boolean {
  return events.some((e) => e.kind === 'task.claimed');
}

export function boardTasks(
  events: readonly StoredEvent[],
  state: RunState,
  merges: readonly LandedMerge[],
): PlanTask[] {
  const firstMs = state.firstMs ?? 0;
  const lastMs = state.lastMs ?? firstMs;
  const board = [...boardOf(events).values()].filter((t) => t.claims.length > 0);
  const claimed = new Set(board.map((t) => t.id));
  const firstClaim = new Map<string, number>();
  for (const t of board)
    for (const c of t.claims)
      firstClaim.set(c.agent, Math.min(c.fromMs, firstClaim.get(c.agent) ?? c.fromMs));

  const tasks: PlanTask[] = [];
  const before = new Map<string, number>();
  for (const agent of state.agents.values()) {
    const bars = state.bars.get(agent.name) ?? [];
    if (agent.steps === 0 || bars.length === 0) continue;
    const startMs = Math.min(...bars.map((b) => b.startMs));
    const endMs = firstClaim.get(agent.name) ?? Math.max(...bars.map((b) => b.endMs));
    if (endMs <= startMs) continue;
    before.set(agent.name, endMs);
    const steps = bars.filter((b) => b.kind === 'model' && b.startMs < endMs).length;
    tasks.push({
      id: `${agent.name}:before`,
      agent: agent.name,
      durationMs: endMs - startMs,
      steps,
      deps: [],
      files: filesOf(merges, [agent.name], startMs, endMs),
      startMs: startMs - firstMs,
    });
  }
  for (const t of board) {
    const spans = t.claims.map((c) => ({ ...c, toMs: c.toMs ?? lastMs }));
    const last = spans[spans.length - 1];
    const planner = t.adder !== null && t.addedMs <= (before.get(t.adder) ?? Number.NEGATIVE_INFINITY);
    const steps = spans.reduce((sum, c) => {
      const bars = state.bars.get(c.agent) ?? [];
      return (
        sum + bars.filter((b) => b.kind === 'model' && b.startMs >= c.fromMs && b.startMs < c.toMs).length
      );
    }, 0);
    tasks.push({
      id: `#${t.id}`,
      agent: last?.agent ?? '',
      durationMs: spans.reduce((sum, c) => sum + Math.max(0, c.toMs - c.fromMs), 0),
      steps,
      deps: [
        ...t.after.filter((id) => claimed.has(id)).map((id) => `#${id}`),
        ...(planner ? [`${t.adder}:before`] : []),
      ],
      files: [...new Set(spans.flatMap((c) => filesOf(merges, [c.agent], c.fromMs, c.toMs)))].sort(),
      startMs: Math.min(...spans.map((c) => c.fromMs)) - firstMs,
    });
  }
  return tasks;
}
