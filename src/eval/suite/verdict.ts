/**
 * The grading rule, on parsed results alone: each listed test (failToPass and passToPass) is looked up
 * by its full name or an alias; a test passes when it was found and every result by that name passed
 * (a name run twice must pass twice). Skipped and missing tests do not pass. Tests not listed do not
 * count, so an unrelated flaky test elsewhere in the repository cannot fail a task.
 */
import type { TestResult } from './results/types.js';
import type { TaskSpec } from './task.js';

export type CheckStatus = 'pass' | 'fail' | 'skip' | 'missing';

export interface TestCheck {
  name: string;
  list: 'failToPass' | 'passToPass';
  status: CheckStatus;
}

export interface Verdict {
  checks: TestCheck[];
  passed: number;
  total: number;
  /** Share of the listed tests that pass, 0..1. */
  score: number;
  /** Every listed test passes. */
  pass: boolean;
}

export function judge(spec: Pick<TaskSpec, 'failToPass' | 'passToPass'>, results: TestResult[]): Verdict {
  const byName = new Map<string, TestResult[]>();
  for (const result of results) {
    for (const name of new Set([result.name, ...result.aliases])) {
      const list = byName.get(name) ?? [];
      list.push(result);
      byName.set(name, list);
    }
  }
  const check = (name: string, list: TestCheck['list']): TestCheck => ({
    name,
    list,
    status: statusOf(byName.get(name) ?? []),
  });
  const checks = [
    ...spec.failToPass.map((name) => check(name, 'failToPass')),
    ...spec.passToPass.map((name) => check(name, 'passToPass')),
  ];
  const passed = checks.filter((c) => c.status === 'pass').length;
  const total = checks.length;
  return {
    checks,
    passed,
    total,
    score: total === 0 ? 0 : passed / total,
    pass: passed === total && total > 0,
  };
}

function statusOf(found: TestResult[]): CheckStatus {
  if (found.length === 0) return 'missing';
  if (found.some((r) => r.status === 'fail')) return 'fail';
  if (found.some((r) => r.status === 'skip')) return 'skip';
  return 'pass';
}
