/** The trials an eval directory already holds (resume: a re-run skips them), keyed arm/task/trial. */
import { readFileSync } from 'node:fs';
import { parseTrialLines } from '../trial-record.js';

export function trialKey(arm: string, task: string, trial: number): string {
  return JSON.stringify([arm, task, trial]);
}

/** Keys of the valid records in `file` (none when it does not exist) and its bad lines. */
export function recordedTrials(file: string): { keys: Set<string>; issues: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { keys: new Set(), issues: [] };
    return { keys: new Set(), issues: [`${file}: cannot read: ${(e as Error).message}`] };
  }
  const { records, issues } = parseTrialLines(text);
  return {
    keys: new Set(records.map((r) => trialKey(r.arm, r.task, r.trial))),
    issues: issues.map((i) => `${file} line ${i.line}: ${i.message} (that trial will run again)`),
  };
}
