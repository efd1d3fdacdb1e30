/**
 * Why a run cannot start, as data: the spec builder says which check failed and with what, and
 * each front door words it its own way — the library names its options (`describeProblem`), the
 * CLI its flags (cli/new-run.ts).
 */

export type SpecProblem =
  | { kind: 'empty-goal' }
  /** A workflow program without topology "workflow", or topology "workflow" without a program. */
  | { kind: 'workflow-pairing' }
  | { kind: 'peers-without-verify' }
  /** A passEnv entry that is not an environment variable name. */
  | { kind: 'env-name'; name: string }
  /** The workflow program cannot be read or transpiled. */
  | { kind: 'workflow-program'; detail: string }
  /** The repository or its base ref (not a git repository, unknown ref, …). */
  | { kind: 'repo'; detail: string }
  /** The sandbox was asked for and cannot be had here. */
  | { kind: 'sandbox'; detail: string }
  /** The spec breaks the stored spec's schema (a wrong value or an unknown field). */
  | { kind: 'invalid-spec'; path: string; detail: string }
  /** The run's model: unknown, or no key for it. */
  | { kind: 'model'; detail: string }
  /** A profile's own model: unknown, or no key for it. */
  | { kind: 'profile-model'; profile: string; detail: string }
  /** A money budget over a model without prices (it would never bind) and no token budget. */
  | { kind: 'unpriced'; budgetUsd: number; what: string };

/** The problem in the library's words (its option names). */
export function describeProblem(problem: SpecProblem): string {
  switch (problem.kind) {
    case 'empty-goal':
      return 'goal must not be empty';
    case 'workflow-pairing':
      return 'a workflow program (workflow.file) goes with topology "workflow"';
    case 'peers-without-verify':
      return 'topology "peers" needs verify (merges and the result are checked with it)';
    case 'env-name':
      return `passEnv needs variable names, got "${problem.name}"`;
    case 'invalid-spec':
      return `invalid run options at ${problem.path}: ${problem.detail}`;
    case 'profile-model':
      return `profile "${problem.profile}": ${problem.detail}`;
    case 'unpriced':
      return (
        `budgetUsd ${problem.budgetUsd} cannot limit ${problem.what}: it has no prices, so its calls ` +
        'would cost nothing against the budget. Set budgetTokens too, or use a model with prices ' +
        '(customModels with prices)'
      );
    case 'workflow-program':
    case 'repo':
    case 'sandbox':
    case 'model':
      return problem.detail;
  }
}
