/**
 * A sandbox for the commands of one run: plain data, so a caller derives the variant it needs (the
 * read-only one of read-only profiles, the one with network for `--setup`) by spreading it.
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

/** The sandbox of `--setup` (it may download dependencies): the same, with network. */
export function setupSandbox(sandbox: Sandbox | null | undefined): Sandbox | null {
  return sandbox ? { ...sandbox, network: true } : null;
}

/** The sandbox of a read-only profile's commands: the checkout bound read-only. */
export function readOnlySandbox(sandbox: Sandbox): Sandbox {
  return { ...sandbox, writable: false };
}
