/** Test helper: trial records with defaults, one field changed at a time. */
import type { TrialRecord } from '../../src/eval/trial-record.js';

export function record(overrides: Partial<TrialRecord> = {}): TrialRecord {
  return {
    v: 1,
    arm: 'solo',
    task: 'task-1',
    repo: 'repo-a',
    trial: 0,
    outcome: 'pass',
    score: 1,
    wallMs: 60_000,
    firstGreenMs: 45_000,
    tokens: { input: 1000, cachedInput: 5000, output: 300 },
    costUsd: 0.5,
    criticalSteps: 12,
    parallelism: 1,
    merges: 0,
    conflicts: 0,
    runId: 'run-1',
    ...overrides,
  };
}
