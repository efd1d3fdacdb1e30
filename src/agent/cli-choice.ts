/**
 * Which external agent CLI drives an agent's loop (src/external-agent/, docs/agent-cli.md): a profile may
 * name one, and the run spec stores the run's choice. Here, below both, so profiles need not reach up
 * into run/.
 */

/** External agent CLIs a peer's or subagent's loop can be driven by. */
export const AGENT_CLI_KINDS = ['claude-code', 'codex', 'cmd'] as const;
export type AgentCliKind = (typeof AGENT_CLI_KINDS)[number];

/** One external CLI: its kind, command and (for an agent of its own) model. */
export interface AgentCliChoice {
  kind: AgentCliKind;
  /** cmd: the command (run with `sh -c` in the agent's checkout); claude-code, codex: the binary. */
  command?: string;
  /** The model id its calls go to (default: the run's model); a CLI speaks one protocol. */
  model?: string;
}
