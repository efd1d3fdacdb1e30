/**
 * The Pareto frontier of (cost, pass rate): the arms no other arm beats on both, i.e. none is at most
 * as expensive and at least as good with one of them strictly. Arms off the frontier are dominated:
 * some other arm is cheaper without being worse, or better without costing more.
 */

export interface ParetoPoint {
  name: string;
  cost: number;
  value: number;
}

/** Frontier arms in order of cost (arms without a finite cost are left out). */
export function paretoFrontier(points: readonly ParetoPoint[]): ParetoPoint[] {
  const usable = points.filter((p) => Number.isFinite(p.cost) && Number.isFinite(p.value));
  return usable
    .filter(
      (p) =>
        !usable.some(
          (q) => q !== p && q.cost <= p.cost && q.value >= p.value && (q.cost < p.cost || q.value > p.value),
        ),
    )
    .sort((a, b) => a.cost - b.cost || b.value - a.value);
}
