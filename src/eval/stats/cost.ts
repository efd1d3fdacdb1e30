/** Money per result: what one passing trial costs on average, counting every trial's spend. */

/** Total spend / passes; null when nothing passed (the cost of a success is then unknown, not ∞). */
export function costPerSuccess(totalCostUsd: number, successes: number): number | null {
  return successes > 0 ? totalCostUsd / successes : null;
}
