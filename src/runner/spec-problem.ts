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
  /** Per-peer settings in a run whose topology is not peers. */
  | { kind: 'peer-settings-topology' }
  /** Per-peer settings for a name that is not one of the run's peers (`peer-1` … `peer-<agents>`). */
  | { kind: 'unknown-peer'; peer: string; agents: number }
  /** A peer's own model: unknown (the detail lists the known ones), or no key for it. */
  | { kind: 'peer-model'; peer: string; detail: string }
  /** A peer given one model by its external CLI's `@MODEL` and another by its settings. */
  | { kind: 'peer-two-models'; peer: string; models: [string, string] }
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
    case 'peer-settings-topology':
      return 'peerSettings go with topology "peers"';
    case 'unknown-peer':
      return `peerSettings: ${problem.peer} is not a peer of this run (${peerRange(problem.agents)})`;
    case 'peer-model':
      return `peerSettings ${problem.peer}: ${problem.detail}`;
    case 'peer-two-models':
      return `${problem.peer} has two models: '${problem.models[0]}' from agentCli and '${problem.models[1]}' from peerSettings`;
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

/** The names of a peers run's agents, as a range: `peer-1 to peer-4` (`peer-1` alone for one). */
export function peerRange(agents: number): string {
  return agents === 1 ? 'peer-1' : `peer-1 to peer-${agents}`;
}
