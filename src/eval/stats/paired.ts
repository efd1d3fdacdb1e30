/**
 * Pairing an arm with the solo baseline task by task. The unit of every paired statistic is the
 * task: its difference d = (arm's share of passing trials) − (solo's share), so a task with many
 * trials does not weigh more than one with few, and trials of one task are never treated as
 * independent evidence.
 */

/** One arm's trials of one task (infra errors already left out). */
export interface TaskTally {
  task: string;
  repo: string;
  trials: number;
  passes: number;
}

export interface PairedTask {
  task: string;
  repo: string;
  arm: number;
  solo: number;
  diff: number;
  /** Trials of the task in the arm and in solo. */
  armTrials: number;
  soloTrials: number;
}

export interface Pairing {
  pairs: PairedTask[];
  /** Tasks only one side has (they cannot be compared and are left out). */
  armOnlyTasks: string[];
  soloOnlyTasks: string[];
}

export function pairTasks(arm: readonly TaskTally[], solo: readonly TaskTally[]): Pairing {
  const soloByTask = new Map(solo.filter((t) => t.trials > 0).map((t) => [t.task, t]));
  const pairs: PairedTask[] = [];
  const armOnlyTasks: string[] = [];
  const paired = new Set<string>();
  for (const a of arm) {
    if (a.trials === 0) continue;
    const s = soloByTask.get(a.task);
    if (!s) {
      armOnlyTasks.push(a.task);
      continue;
    }
    paired.add(a.task);
    const armRate = a.passes / a.trials;
    const soloRate = s.passes / s.trials;
    pairs.push({
      task: a.task,
      repo: a.repo,
      arm: armRate,
      solo: soloRate,
      diff: armRate - soloRate,
      armTrials: a.trials,
      soloTrials: s.trials,
    });
  }
  const soloOnlyTasks = [...soloByTask.keys()].filter((t) => !paired.has(t));
  return { pairs, armOnlyTasks, soloOnlyTasks };
}

/** True when every paired task has exactly one trial on each side (McNemar's setting). */
export function oneTrialEach(pairs: readonly PairedTask[]): boolean {
  return pairs.length > 0 && pairs.every((p) => p.armTrials === 1 && p.soloTrials === 1);
}

/** Discordant tasks: passed by the arm only, and by solo only. */
export function discordantCounts(pairs: readonly PairedTask[]): { armOnly: number; soloOnly: number } {
  let armOnly = 0;
  let soloOnly = 0;
  for (const p of pairs) {
    if (p.diff > 0) armOnly++;
    else if (p.diff < 0) soloOnly++;
  }
  return { armOnly, soloOnly };
}
