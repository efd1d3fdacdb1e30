/**
 * pass@k and pass^k from n trials of a task with c passes.
 * - pass@k: the chance that at least one of k trials passes. Unbiased estimator (Chen et al. 2021,
 *   "Evaluating Large Language Models Trained on Code"): 1 − C(n−c, k) / C(n, k), computed as
 *   1 − Π_{i=n−c+1..n} (1 − k/i) to stay exact for large n.
 * - pass^k: the chance that all k trials pass (reliability; Yao et al. 2024, τ-bench):
 *   C(c, k) / C(n, k) = Π_{i=0..k−1} (c − i)/(n − i), unbiased for p^k.
 * Both need k ≤ n; a suite's value is the mean over its tasks.
 */

export interface TaskCounts {
  trials: number;
  passes: number;
}

export function passAtK(n: number, c: number, k: number): number {
  if (k > n || k < 1) return Number.NaN;
  if (n - c < k) return 1;
  let prodFail = 1;
  for (let i = n - c + 1; i <= n; i++) prodFail *= 1 - k / i;
  return 1 - prodFail;
}

export function passHatK(n: number, c: number, k: number): number {
  if (k > n || k < 1) return Number.NaN;
  let prod = 1;
  for (let i = 0; i < k; i++) prod *= (c - i) / (n - i);
  return Math.max(0, prod);
}

export interface PassAtKRow {
  k: number;
  /** Tasks with at least k trials (the others cannot estimate this k). */
  tasks: number;
  passAtK: number;
  passHatK: number;
}

/** The suite's pass@k and pass^k for each k in `ks` that at least one task has enough trials for. */
export function suitePassAtK(tasks: readonly TaskCounts[], ks: readonly number[]): PassAtKRow[] {
  const rows: PassAtKRow[] = [];
  for (const k of ks) {
    const usable = tasks.filter((t) => t.trials >= k);
    if (usable.length === 0) continue;
    let at = 0;
    let hat = 0;
    for (const t of usable) {
      at += passAtK(t.trials, t.passes, k);
      hat += passHatK(t.trials, t.passes, k);
    }
    rows.push({ k, tasks: usable.length, passAtK: at / usable.length, passHatK: hat / usable.length });
  }
  return rows;
}
