/**
 * A workflow program's DAG from its log: the tasks are its agent steps (step.started → step.finished,
 * the model steps of their attempts' agents) and its sync points (sync.finished, `durationMs` before
 * it). Stages only order them:
 *
 * - A `w.dag` node (stage.started with `after`) waits for exactly its `after` stages.
 * - Any other stage, step or sync point waits for every sibling (same enclosing stage) that ended
 *   before it started: the program awaited it (sequential `await`s, `w.stage` after `w.stage`);
 *   siblings whose log intervals overlap ran in parallel (`w.parallel`, `w.map`). The same rule as the
 *   workflow's CriticalSteps (view/critical-path.ts). A sibling that happened to finish before a
 *   concurrency-limited `w.map` item started reads as a predecessor: the graph errs towards less
 *   parallelism than the program allows.
 * - A task waits for every task inside the predecessors of it and of each enclosing stage.
 */
import type { StoredEvent } from '../../core/events.js';
import type { RunState } from '../../view/run-state.js';
import { filesOf, type LandedMerge } from './landed-merges.js';
import type { PlanTask } from './task-graph.js';

interface Node {
  id: string;
  parent: string | null;
  startMs: number;
  endMs: number;
  /** w.dag predecessors (stage ids); null when the stage is not a dag node with predecessors. */
  after: string[] | null;
  leaf: boolean;
}

function nodesOf(events: readonly StoredEvent[], lastMs: number): Node[] {
  const nodes = new Map<string, Node>();
  for (const event of events) {
    const atMs = Date.parse(event.ts);
    if (event.kind === 'stage.started') {
      const d = event.data;
      const after = d.after.length > 0 ? d.after : null;
      nodes.set(d.stage, { id: d.stage, parent: d.parent, startMs: atMs, endMs: lastMs, after, leaf: false });
    } else if (event.kind === 'step.started' && !nodes.has(event.data.step)) {
      const d = event.data;
      nodes.set(d.step, {
        id: d.step,
        parent: d.stage,
        startMs: atMs,
        endMs: lastMs,
        after: null,
        leaf: true,
      });
    } else if (event.kind === 'stage.finished' || event.kind === 'step.finished') {
      const id = event.kind === 'stage.finished' ? event.data.stage : event.data.step;
      const node = nodes.get(id);
      if (node) node.endMs = atMs;
    } else if (event.kind === 'sync.finished') {
      const d = event.data;
      const startMs = atMs - d.durationMs;
      nodes.set(d.step, { id: d.step, parent: d.stage, startMs, endMs: atMs, after: null, leaf: true });
    }
  }
  return [...nodes.values()];
}

export function workflowTasks(
  events: readonly StoredEvent[],
  state: RunState,
  merges: readonly LandedMerge[],
): PlanTask[] {
  const firstMs = state.firstMs ?? 0;
  const nodes = nodesOf(events, state.lastMs ?? firstMs);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parentOf = (n: Node): string => (n.parent !== null && byId.has(n.parent) ? n.parent : '');
  const children = new Map<string, Node[]>();
  for (const n of nodes) children.set(parentOf(n), [...(children.get(parentOf(n)) ?? []), n]);

  const predecessors = (n: Node): Node[] =>
    n.after
      ? n.after.flatMap((id) => byId.get(id) ?? [])
      : (children.get(parentOf(n)) ?? []).filter((s) => s !== n && s.endMs <= n.startMs);
  const leavesOf = (n: Node): string[] => (n.leaf ? [n.id] : (children.get(n.id) ?? []).flatMap(leavesOf));

  const tasks: PlanTask[] = [];
  for (const leaf of nodes.filter((n) => n.leaf)) {
    const deps = new Set<string>();
    for (let n: Node | undefined = leaf; n; n = byId.get(parentOf(n)))
      for (const before of predecessors(n)) for (const id of leavesOf(before)) deps.add(id);
    const agents = [...new Set(state.workflow.steps.get(leaf.id)?.agents ?? [])];
    tasks.push({
      id: leaf.id,
      agent: agents[agents.length - 1] ?? '',
      durationMs: Math.max(0, leaf.endMs - leaf.startMs),
      steps: agents.reduce((sum, a) => sum + (state.agents.get(a)?.steps ?? 0), 0),
      deps: [...deps].sort(),
      files: filesOf(merges, agents),
      startMs: leaf.startMs - firstMs,
    });
  }
  return tasks;
}
