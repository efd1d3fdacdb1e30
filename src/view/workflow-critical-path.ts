/**
 * CriticalSteps of a workflow run, from its events (REFERENCE §1: Σ over stages of 1 + the slowest
 * member). A stage costs 1 + the longest chain of its children; a step (a leaf) costs the model steps
 * of its attempts' agents (attempts and repairs run one after another). Children that overlap in the
 * log (one started before the other finished) ran in parallel; a chain is a sequence of children each
 * starting after the previous finished — so sequential stages add up, parallel ones (w.map items,
 * independent DAG nodes) count once, by their slowest.
 */
import type { StoredEvent } from '../core/events.js';

export interface WorkflowCriticalPath {
  criticalSteps: number;
  totalSteps: number;
  parallelism: number;
  /** Top-level stages with their own critical steps. */
  stages: Array<{ stage: string; criticalSteps: number }>;
}

interface Node {
  id: string;
  start: number;
  end: number;
  /** Leaf cost (steps); stages compute theirs from children. */
  steps: number;
  stage: boolean;
  children: Node[];
}

export function workflowCriticalPath(events: readonly StoredEvent[]): WorkflowCriticalPath {
  const agentSteps = new Map<string, number>();
  let totalSteps = 0;
  for (const event of events) {
    if (event.kind === 'model.response' && event.agent) {
      agentSteps.set(event.agent, (agentSteps.get(event.agent) ?? 0) + 1);
      totalSteps++;
    }
  }
  const stages = new Map<string, Node>();
  const parents = new Map<string, string | null>();
  const steps = new Map<string, Node>();
  const stepParent = new Map<string, string | null>();
  const last = events.at(-1)?.seq ?? 0;
  for (const event of events) {
    switch (event.kind) {
      case 'stage.started': {
        const data = event.data;
        stages.set(data.stage, {
          id: data.stage,
          start: event.seq,
          end: last,
          steps: 0,
          stage: true,
          children: [],
        });
        parents.set(data.stage, data.parent);
        break;
      }
      case 'stage.finished': {
        const node = stages.get(event.data.stage);
        if (node) node.end = event.seq;
        break;
      }
      case 'step.started': {
        const data = event.data;
        if (steps.has(data.step)) break;
        steps.set(data.step, {
          id: data.step,
          start: event.seq,
          end: last,
          steps: 0,
          stage: false,
          children: [],
        });
        stepParent.set(data.step, data.stage);
        break;
      }
      case 'step.attempt': {
        const data = event.data;
        const node = steps.get(data.step);
        if (node) for (const agent of data.agents) node.steps += agentSteps.get(agent) ?? 0;
        break;
      }
      case 'step.finished': {
        const node = steps.get(event.data.step);
        if (node) node.end = event.seq;
        break;
      }
      default:
        break;
    }
  }
  const root: Node = { id: '', start: 0, end: last, steps: 0, stage: true, children: [] };
  const attach = (node: Node, parent: string | null | undefined) => {
    (parent ? (stages.get(parent) ?? root) : root).children.push(node);
  };
  for (const node of stages.values()) attach(node, parents.get(node.id));
  for (const node of steps.values()) attach(node, stepParent.get(node.id));

  const cost = (node: Node): number => (node.stage ? 1 + longestChain(node.children) : node.steps);
  const longestChain = (children: Node[]): number => {
    const sorted = [...children].sort((a, b) => a.start - b.start);
    const best: number[] = [];
    let overall = 0;
    sorted.forEach((node, i) => {
      let before = 0;
      for (let j = 0; j < i; j++) {
        const previous = sorted[j] as Node;
        if (previous.end < node.start) before = Math.max(before, best[j] ?? 0);
      }
      best[i] = before + cost(node);
      overall = Math.max(overall, best[i] ?? 0);
    });
    return overall;
  };
  const criticalSteps = longestChain(root.children);
  return {
    criticalSteps,
    totalSteps,
    parallelism: criticalSteps > 0 ? Math.round((totalSteps / criticalSteps) * 100) / 100 : 0,
    stages: root.children.filter((n) => n.stage).map((n) => ({ stage: n.id, criticalSteps: cost(n) })),
  };
}
