/**
 * Trials grouped per arm and per task. Infra errors say nothing about a team (the harness failed, not
 * the agents), so they are counted apart and left out of every rate; time-outs are failures.
 */
import type { TaskTally } from '../stats/paired.js';
import type { TrialRecord } from '../trial-record.js';

export interface ArmTrials {
  /** Trials that count (pass, fail, timeout). */
  graded: TrialRecord[];
  infraErrors: TrialRecord[];
  tasks: TaskTally[];
}

export function isGraded(r: TrialRecord): boolean {
  return r.outcome !== 'infra_error';
}

export function tallyArm(records: readonly TrialRecord[]): ArmTrials {
  const graded = records.filter(isGraded);
  const byTask = new Map<string, TaskTally>();
  for (const r of graded) {
    const t = byTask.get(r.task) ?? { task: r.task, repo: r.repo, trials: 0, passes: 0 };
    t.trials++;
    if (r.outcome === 'pass') t.passes++;
    byTask.set(r.task, t);
  }
  return {
    graded,
    infraErrors: records.filter((r) => !isGraded(r)),
    tasks: [...byTask.values()].sort((a, b) => a.repo.localeCompare(b.repo) || a.task.localeCompare(b.task)),
  };
}

/** Records per arm name, in first-seen order. */
export function byArm(records: readonly TrialRecord[]): Map<string, TrialRecord[]> {
  const out = new Map<string, TrialRecord[]>();
  for (const r of records) {
    const list = out.get(r.arm);
    if (list) list.push(r);
    else out.set(r.arm, [r]);
  }
  return out;
}
