/** Per-test results as every parser returns them, whatever the runner's format. */
export type TestStatus = 'pass' | 'fail' | 'skip';

export interface TestResult {
  /** The test's full name: its suites' and its own names joined with " > " (`group > adds two`). */
  name: string;
  status: TestStatus;
  /** Other names a task may list it by (`Class.method`, `file::name`, a runner's own full name). */
  aliases: string[];
}

/** Joins a test's suite path and name into its full name. */
export function fullName(path: readonly string[]): string {
  return path.join(' > ');
}
