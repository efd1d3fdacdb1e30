/**
 * A sandbox for the commands of one run: plain data, so a caller derives the variant it needs (the
 * read-only one of read-only profiles, `--setup`'s on the base tree, with network) by spreading it.
 */

export interface Sandbox {
  /** Absolute path of the `bwrap` binary (checked to work on this machine). */
  readonly bwrap: string;
  /** Shares the host's network; otherwise the sandbox has its own network namespace (loopback only). */
  readonly network: boolean;
  /** The checkout is bound read-write; false for read-only profiles. */
  readonly writable: boolean;
  /** Variables the user passes in by name (`--pass-env NAME`), with their values. */
  readonly passEnv: Readonly<Record<string, string>>;
}

/**
 * The sandbox of `--setup`, which may download dependencies. On the base commit's tree (the user's
 * files as the run started) it has the network. On a tree with agents' changes it runs their code
 * (a package.json script, a Makefile they edited), so it has the network only when the run's
 * commands have it (`--allow-network`). Every place setup runs decides `onBaseTree` for its tree.
 */
export function setupSandbox(sandbox: Sandbox | null | undefined, onBaseTree: boolean): Sandbox | null {
  return sandbox ? { ...sandbox, network: sandbox.network || onBaseTree } : null;
}

/** The sandbox of a read-only profile's commands: the checkout bound read-only. */
export function readOnlySandbox(sandbox: Sandbox): Sandbox {
  return { ...sandbox, writable: false };
}
