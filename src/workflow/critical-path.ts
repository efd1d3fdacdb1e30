/**
 * The critical path of a `w.dag` plan, before it runs: every node has a weight (its estimated model
 * steps: recorded by an earlier run of the same program, else 1) and its predecessors. A node's rank
 * is the longest chain from it to the end of the graph, its own weight included (its "bottom
 * level"); the plan's CriticalSteps is the largest rank. The engine starts ready nodes by rank
 * (higher first) and gives their steps the rank as the scheduler's tie-break after `priority`, so
 * the longest remaining chain gets agent slots first (docs/workflows.md, "Critical-path scheduling").
 *
 * Pure and deterministic: ties go to the node declared first, so the same plan orders the same way
 * on every run and on resume.
 */

export interface PlanNode {
  name: string;
  /** Names of the nodes this one waits for. */
  after: readonly string[];
  /** Estimated model steps (≥ 0). */
  weight: number;
}

export interface DagPlan {
  /** Node name → its longest chain to the end, its own weight included. */
  ranks: ReadonlyMap<string, number>;
  /** The longest chain, first node to last (ties: the node declared first). */
  criticalPath: string[];
  /** The sum of the weights on `criticalPath` (0 for an empty graph). */
  criticalSteps: number;
  /** Every node by rank, higher first, then in declaration order: the order ready nodes start in. */
  order: string[];
}

/** A graph that cannot run: a predecessor that is not a node, or a cycle. */
export class DagPlanError extends Error {}

/** Whether a program's error message is a DagPlanError's (they all start so). */
export function isDagPlanMessage(message: string): boolean {
  return message.startsWith('dag: ');
}

/** Unknown predecessors and cycles throw DagPlanError (messages name the nodes, a cycle its loop). */
export function checkDagShape(nodes: readonly PlanNode[]): void {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    const node = byName.get(name);
    if (!node) throw new DagPlanError(`dag: node "${path.at(-1)}" waits for unknown node "${name}"`);
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new DagPlanError(`dag: cycle ${[...path, name].join(' → ')}`);
    state.set(name, 'visiting');
    for (const next of node.after) visit(next, [...path, name]);
    state.set(name, 'done');
  };
  for (const node of nodes) visit(node.name, []);
}

export function planDag(nodes: readonly PlanNode[]): DagPlan {
  checkDagShape(nodes);
  for (const node of nodes)
    if (!Number.isFinite(node.weight) || node.weight < 0)
      throw new DagPlanError(`dag: node "${node.name}" has weight ${node.weight} (a number ≥ 0 is needed)`);
  const declared = new Map(nodes.map((n, i) => [n.name, i]));
  const successors = new Map<string, string[]>(nodes.map((n) => [n.name, []]));
  for (const node of nodes) for (const before of node.after) successors.get(before)?.push(node.name);

  const ranks = new Map<string, number>();
  /** The successor a node's longest chain continues with (null at the end). */
  const next = new Map<string, string | null>();
  const rankOf = (name: string): number => {
    const known = ranks.get(name);
    if (known !== undefined) return known;
    let best: string | null = null;
    let bestRank = 0;
    // Successors in declaration order: a tie keeps the first declared.
    for (const succ of successors.get(name) ?? []) {
      const r = rankOf(succ);
      if (best === null || r > bestRank) {
        best = succ;
        bestRank = r;
      }
    }
    const weight = nodes[declared.get(name) ?? -1]?.weight ?? 0;
    const rank = weight + bestRank;
    ranks.set(name, rank);
    next.set(name, best);
    return rank;
  };
  for (const node of nodes) rankOf(node.name);

  const order = nodes
    .map((n) => n.name)
    .sort(
      (a, b) => (ranks.get(b) ?? 0) - (ranks.get(a) ?? 0) || (declared.get(a) ?? 0) - (declared.get(b) ?? 0),
    );
  // The path starts at the best-ranked node without predecessors (a node with predecessors has a
  // rank no greater than theirs, so the first entry of `order` with no `after` is the start).
  const first = order.find((name) => nodes[declared.get(name) ?? -1]?.after.length === 0);
  const criticalPath: string[] = [];
  for (let at: string | null = first ?? null; at !== null; at = next.get(at) ?? null) criticalPath.push(at);
  return {
    ranks,
    criticalPath,
    criticalSteps: first === undefined ? 0 : (ranks.get(first) ?? 0),
    order,
  };
}
